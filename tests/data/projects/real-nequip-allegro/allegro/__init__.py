# This file is a part of the `allegro` package. Please see LICENSE and README at the root for information on using it.
from ._version import __version__
from . import _compile
from . import _extern

__all__ = ["__version__", "_compile", "_extern"]
