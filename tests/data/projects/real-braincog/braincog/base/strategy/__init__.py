__all__ = ['surrogate', 'LateralInhibition']

from . import (
    surrogate,
    LateralInhibition
)
