"""Data classes."""

# Symbols that need to be accessible outside this submodule.

from .batches import Batch  # noqa: F401
from .datamodules import DataModule  # noqa: F401
