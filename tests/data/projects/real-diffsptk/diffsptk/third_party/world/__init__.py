from .common import *
