from . import *
