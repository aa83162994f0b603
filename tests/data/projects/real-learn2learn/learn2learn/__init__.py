#!/usr/bin/env python3

from ._version import __version__
from . import algorithms
from . import data
from . import gym
from . import text
from . import vision
from . import optim
from . import nn
from .utils import *
