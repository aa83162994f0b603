from . import algorithms
from .split import frame_classification_dataframe, unit_dataframe

__all__ = [
    "algorithms",
    "frame_classification_dataframe",
    "unit_dataframe",
]
