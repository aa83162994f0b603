from .code import *
