from . import unit_dataset
from .unit_dataset import prep_unit_dataset

__all__ = ["prep_unit_dataset", "unit_dataset"]
