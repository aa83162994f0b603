from .air_hockey import *
