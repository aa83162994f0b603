from .base import Cosmology
from .FlatLambdaCDM import FlatLambdaCDM

__all__ = ("Cosmology", "FlatLambdaCDM")
