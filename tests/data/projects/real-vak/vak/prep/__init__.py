from . import (
    audio_dataset,
    constants,
    dataset_df_helper,
    frame_classification,
    parametric_umap,
    prep_,
    sequence_dataset,
    spectrogram_dataset,
    unit_dataset,
)
from .prep_ import prep

__all__ = [
    "audio_dataset",
    "constants",
    "dataset_df_helper",
    "frame_classification",
    "parametric_umap",
    "prep",
    "prep_",
    "sequence_dataset",
    "spectrogram_dataset",
    "unit_dataset",
]
