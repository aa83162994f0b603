# -*- coding: utf-8 -*-

from . import models
from . import utils
from .version import __version__

__all__ = ['models', 'utils', '__version__']
