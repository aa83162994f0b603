from .gma import *
