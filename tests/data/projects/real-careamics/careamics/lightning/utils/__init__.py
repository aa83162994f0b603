"""Lightning utils."""

__all__ = [
    "Series",
    "TrainingReport",
    "load_config_from_checkpoint",
    "load_module_from_checkpoint",
    "read_csv_logger",
]

from .csv_logger import Series, TrainingReport, read_csv_logger
from .load_checkpoint import load_config_from_checkpoint, load_module_from_checkpoint
