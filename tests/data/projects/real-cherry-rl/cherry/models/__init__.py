#!/usr/bin/env python3

from .utils import polyak_average, RandomPolicy
from . import atari
from . import robotics
from . import tabular
