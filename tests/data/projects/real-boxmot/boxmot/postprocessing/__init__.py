# Mikel Broström 🔥 BoxMOT 🧾 AGPL-3.0 license
from boxmot.postprocessing.base import MotFilePostprocessor, Postprocessor
from boxmot.postprocessing.registry import create_postprocessor, supported_postprocessors

__all__ = (
    "MotFilePostprocessor",
    "Postprocessor",
    "create_postprocessor",
    "supported_postprocessors",
)
