__all__ = ['args']

from .args import *
from .arg_parser import HfArgumentParser
from .configuration_auto import AutoPhysConfig
from .configuration_cylinder import CylinderConfig
from .configuration_grayscott import GrayScottConfig
from .configuration_lorenz import LorenzConfig
from .configuration_phys import PhysConfig