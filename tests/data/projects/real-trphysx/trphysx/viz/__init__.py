from .viz_auto import AutoViz
from .viz_cylinder import CylinderViz
from .viz_grayscott import GrayScottViz
from .viz_lorenz import LorenzViz
from .viz_model import Viz