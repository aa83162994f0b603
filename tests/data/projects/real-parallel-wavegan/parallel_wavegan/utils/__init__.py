from .utils import *  # NOQA
