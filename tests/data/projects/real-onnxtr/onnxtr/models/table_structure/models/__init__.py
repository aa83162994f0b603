from .tablecenternet import *
