from .sim_clr import SimCLRTrainer
from .byol import BYOLTrainer