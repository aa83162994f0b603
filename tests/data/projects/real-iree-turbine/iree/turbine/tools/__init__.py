from .interpreter import *
