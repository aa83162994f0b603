from . import frame_classification, learncurve, make_splits, validators
from .assign_samples_to_splits import assign_samples_to_splits
from .frame_classification import prep_frame_classification_dataset
from .source_files import get_or_make_source_files

__all__ = [
    "assign_samples_to_splits",
    "frame_classification",
    "get_or_make_source_files",
    "learncurve",
    "make_splits",
    "prep_frame_classification_dataset",
    "validators",
]
