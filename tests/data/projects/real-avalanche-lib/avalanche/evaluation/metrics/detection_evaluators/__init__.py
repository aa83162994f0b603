from .lvis_evaluator import *
