from .imputer import Imputer
from .predictor import Predictor

classes = [
    'Predictor',
    'Imputer',
]

__all__ = classes
