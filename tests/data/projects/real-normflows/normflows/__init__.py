#! /usr/bin/env python
# -*- coding: utf-8 -*-

from .core import *
from . import core
from . import flows
from . import distributions
from . import transforms
from . import nets
from . import utils
from . import sampling
from .sampling import HAIS

__version__ = "1.7.3"
