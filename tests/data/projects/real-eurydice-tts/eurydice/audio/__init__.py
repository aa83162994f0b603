"""Audio processing for eurydice."""

from eurydice.audio.decoder import SNACDecoder, is_audio_available
from eurydice.audio.formats import create_wav
from eurydice.audio.tokens import TokenProcessor

__all__ = [
    "SNACDecoder",
    "is_audio_available",
    "TokenProcessor",
    "create_wav",
]
