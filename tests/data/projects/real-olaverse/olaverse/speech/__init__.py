from olaverse.speech.base import BaseAcousticModel, BaseVocoder, ExperimentalWarning
from olaverse.speech.pipeline import TTSPipeline

__all__ = [
    "BaseAcousticModel",
    "BaseVocoder",
    "ExperimentalWarning",
    "TTSPipeline",
]
