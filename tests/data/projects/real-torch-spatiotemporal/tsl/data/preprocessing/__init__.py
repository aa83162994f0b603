from . import scalers
from .scalers import *

scaler_classes = scalers.__all__

__all__ = scaler_classes
