from pathlib import Path

from . import (
    data_utils,
    realtabformer,
    rtf_analyze,
    rtf_datacollator,
    rtf_exceptions,
    rtf_sampler,
    rtf_trainer,
    rtf_validators,
)
from .realtabformer import REaLTabFormer

__version__ = (Path(__file__).parent / "VERSION").read_text().strip()

__all__ = [
    "REaLTabFormer",
    "realtabformer",
    "data_utils",
    "rtf_sampler",
    "rtf_validators",
    "rtf_exceptions",
    "rtf_datacollator",
    "rtf_trainer",
    "rtf_analyze",
]
