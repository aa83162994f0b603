from .diarize import SenkoDiarization

__all__ = ["SenkoDiarization"]
