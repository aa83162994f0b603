#!/usr/bin/env python3

r"""
Datasets, models, and other utilities related to computer vision.
"""

from . import datasets
from . import models
from . import transforms
from . import benchmarks
