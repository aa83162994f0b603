"""
Torch-based neural network components for VoxelMorph. This subpackage contains the functional
operators, reusable building blocks, model definitions, and loss functions to implement the
VoxelMorph framework in PyTorch.

Modules
-------
functional
    Functions containing the core operations and logic of for image registration written in
    PyTorch.
losses
    Loss functions for image registration.
models
    Core VoxelMorph models for unsupervised and supervised learning.
modules
    Neural network building blocks for VoxelMorph.
"""

from . import functional
from . import losses
from . import models
from . import modules

__all__ = [
    "functional",
    "losses",
    "models",
    "modules",
]
