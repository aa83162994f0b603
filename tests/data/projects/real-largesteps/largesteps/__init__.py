"""
largesteps.

Laplacian parameterization package for shape optimization with differentiable
rendering.
"""

__version__ = "0.2.2"
__author__ = 'Baptiste Nicolet'
