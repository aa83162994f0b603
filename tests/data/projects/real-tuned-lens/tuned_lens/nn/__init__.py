"""A set of PyTorch modules for transforming the residual streams of models."""
from .lenses import Lens, LogitLens, TunedLens, TunedLensConfig
from .unembed import (
    InversionOutput,
    Unembed,
)
