"""
Osculari is a Python package to explore artificial neural networks with psychophysical experiments.
"""

from . import datasets
from . import models
from . import paradigms

from .models.pretrained_models import available_models

# Version variable
__version__ = "0.0.4"
