"""Provides the API for quality control."""

from senselab.audio.tasks.input_output import get_audio_files_from_directory

from .evaluate import (
    evaluate_audio,
    evaluate_batch,
    evaluate_dataset,
    get_evaluation,
)
from .quality_control import (
    activity_to_evaluations,
    check_quality,
)
from .review import review_files

__all__ = [
    "get_evaluation",
    "check_quality",
    "activity_to_evaluations",
    "evaluate_audio",
    "evaluate_batch",
    "evaluate_dataset",
    "get_audio_files_from_directory",
    "review_files",
]
