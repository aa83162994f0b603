# -*- coding: utf-8 -*-

"""Top-level package for pycox."""

__author__ = """Haavard Kvamme"""
__email__ = 'haavard.kvamme@gmail.com'
__version__ = '0.3.0'

import pycox.datasets
import pycox.evaluation
import pycox.preprocessing
import pycox.simulations
import pycox.utils
import pycox.models
