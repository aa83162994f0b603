"""Diarization and separation helpers that output RTTM/VTTM for verbatim."""

from .diarization import UNKNOWN_SPEAKER, Diarization
from .diarize import create_diarizer

__all__ = ["Diarization", "UNKNOWN_SPEAKER", "create_diarizer"]
