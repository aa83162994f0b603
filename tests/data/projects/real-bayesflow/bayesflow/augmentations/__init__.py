r"""
A collection of augmentations to modify the training data on the fly.
"""

from .nnpe import NNPE
