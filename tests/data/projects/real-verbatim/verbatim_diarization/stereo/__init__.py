from .diarize import EnergyDiarization

__all__ = ["EnergyDiarization"]
