"""
This module readouts features from pretrained networks and implements linear probe layers.
"""

from .model_utils import *
from .pretrained_models import *
from .pretrained_layers import *
from .readout import *
