from .base import BaseDiarizer, BaseRecognizer, BaseASR
from .diarizer import PyAnnoteDiarizer
from .recognizer import SpeechBrainRecognizer
from .asr import (
    WhisperASR,
    FasterWhisperASR,
    CustomWhisperASR,
    HuggingFaceASR,
    AssemblyAIASR,
)

__all__ = [
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
