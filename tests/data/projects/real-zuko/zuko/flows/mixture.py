r"""Mixture models.

Warning:
    This sub-module is deprecated and will be removed in the future. Use
    :mod:`zuko.mixtures` instead.
"""

__all__ = [
    "GMM",
]

from ..mixtures import GMM
