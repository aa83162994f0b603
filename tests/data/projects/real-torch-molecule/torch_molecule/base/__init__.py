from .predictor import BaseMolecularPredictor
from .encoder import BaseMolecularEncoder
from .generator import BaseMolecularGenerator
__all__ = [
    "BaseMolecularPredictor",
    "BaseMolecularEncoder",
    "BaseMolecularGenerator",
]
