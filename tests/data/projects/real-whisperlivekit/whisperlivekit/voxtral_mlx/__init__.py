"""Pure-MLX Voxtral Realtime backend for WhisperLiveKit."""

from .loader import load_voxtral_model
from .model import VoxtralMLXModel

__all__ = ["load_voxtral_model", "VoxtralMLXModel"]
