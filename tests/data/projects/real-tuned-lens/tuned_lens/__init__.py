"""The tuned lens package."""
from .nn import TunedLens
