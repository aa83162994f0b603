"""Package to house various prediction utilies."""

__all__ = [
    "convert_outputs_microsplit",
    "stitch_prediction_vae",
]

from .lvae_convert_outputs import (
    convert_outputs_microsplit,
)
from .lvae_stitch_prediction import (
    stitch_prediction_vae,
)
