from .accelerator import Accelerator
from .booster import Booster
from .plugin import Plugin
