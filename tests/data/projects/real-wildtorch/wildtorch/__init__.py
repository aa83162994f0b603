from . import dataset, metrics, utils
from .__about__ import __version__
from .main import WildTorchSimulator, SimulatorConstants
from .logger import Logger
