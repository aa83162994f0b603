from .pipeline import Pipeline
from .components import (
    BaseDiarizer,
    BaseRecognizer,
    BaseASR,
    PyAnnoteDiarizer,
    SpeechBrainRecognizer,
    WhisperASR,
    FasterWhisperASR,
    CustomWhisperASR,
    HuggingFaceASR,
    AssemblyAIASR,
)

__all__ = [
    "Pipeline",
    "BaseDiarizer",
    "BaseRecognizer",
    "BaseASR",
    "PyAnnoteDiarizer",
    "SpeechBrainRecognizer",
    "WhisperASR",
    "FasterWhisperASR",
    "CustomWhisperASR",
    "HuggingFaceASR",
    "AssemblyAIASR",
]
