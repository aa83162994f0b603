"""ORIGAMI preprocessing utilities.

Provides preprocessing transforms for JSON objects before tokenization.
"""

from .numeric_discretizer import NumericDiscretizer
from .numeric_scaler import NumericScaler, ScaledNumeric
from .postprocessor import SchemaPostProcessor
from .target_field import move_target_last

__all__ = [
    "NumericDiscretizer",
    "NumericScaler",
    "ScaledNumeric",
    "SchemaPostProcessor",
    "move_target_last",
]
