"""This package includes a miscellaneous collection of useful helper functions."""
from sadtalker.face3d.util import *

