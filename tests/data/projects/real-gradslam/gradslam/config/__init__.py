from .cfgnode import *
