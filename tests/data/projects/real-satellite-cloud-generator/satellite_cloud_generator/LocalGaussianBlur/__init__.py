from .src import *
