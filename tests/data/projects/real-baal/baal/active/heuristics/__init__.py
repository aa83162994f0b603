from .heuristics import *
