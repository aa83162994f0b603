"""Encoding Autograd Fuctions"""
from .encoding import *
from .syncbn import *
from .dist_syncbn import dist_syncbatchnorm
from .customize import *
from .rectify import *
