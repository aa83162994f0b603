from .factuality import *
