from .hip import *
