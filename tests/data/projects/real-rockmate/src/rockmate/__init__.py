__all__ = ["solvers",
           "Rockmate",
           "PureRotor",
           "PureCheckmate",
           "PureRockmate",
           "Hiremate",
           "Offmate",
           "frontend",
           "generate_config",
           "from_config",
           "default_config",
           "save_config",
           "load_config"
           ]

from .rockmate import Rockmate
from . import solvers
from .frontend import *
from . import frontend
