from .model import *  # NOQA
