from .transforms import *
