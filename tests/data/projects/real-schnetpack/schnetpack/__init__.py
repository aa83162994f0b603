import warnings

warnings.filterwarnings("ignore", category=DeprecationWarning, module="tensorboard")

from schnetpack import transform
from schnetpack import properties
from schnetpack import data
from schnetpack import datasets
from schnetpack import atomistic
from schnetpack import representation
from schnetpack import interfaces
from schnetpack import nn
from schnetpack import train
from schnetpack import model
from schnetpack.units import *
from schnetpack.task import *
from schnetpack import md


__version__ = "2.1.1"
