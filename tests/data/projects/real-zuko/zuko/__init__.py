r"""Zuko - Normalizing flows in PyTorch"""

__version__ = "1.6.0"

from . import distributions, flows, lazy, mixtures, nn, transforms, utils
