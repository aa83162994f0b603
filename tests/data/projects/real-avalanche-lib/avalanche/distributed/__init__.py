from .distributed_helper import *
