#!/usr/bin/env python3

from ._version import __version__

from . import td
from . import pg
from . import envs
from . import wrappers
from . import optim
from . import nn
from . import models
from . import algorithms
from . import distributions
from . import plot
from . import debug

from .experience_replay import ExperienceReplay, Transition
from .td import discount, temporal_difference
from .pg import generalized_advantage
from ._torch import normalize, totensor, onehot
