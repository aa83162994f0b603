"""Piper text-to-speech engine."""

from .config import PhonemeType, PiperConfig, SynthesisConfig
from .voice import AudioChunk, PiperVoice

__all__ = [
    "AudioChunk",
    "PhonemeType",
    "PiperConfig",
    "PiperVoice",
    "SynthesisConfig",
]
