from .neuflow import *
