from ._implementations.ensemble import Ensemble
from .regressor import Regressor

__all__ = ['Ensemble', 'Regressor']
