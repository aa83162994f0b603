from .harmonix import *
