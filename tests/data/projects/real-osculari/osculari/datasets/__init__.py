"""
This module manages datasets and dataloaders for psychophysical experiments.
"""

from .geometrical_shapes import *
from .gratings import *
from . import imutils
from . import dataset_utils
