from .predictor import *
