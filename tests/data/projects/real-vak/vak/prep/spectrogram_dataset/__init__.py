"""Functions for preparing a dataset for neural network models
from a dataset of spectrograms."""

from .prep import prep_spectrogram_dataset

__all__ = [
    "prep_spectrogram_dataset",
]
