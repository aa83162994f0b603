from .fastflownet import *
