from .builder import ModelBuilder
from .models import EnergyDerivativeModel, EnergyModel

__all__ = ["EnergyModel", "EnergyDerivativeModel", "ModelBuilder"]
