from .orca_parser import *
