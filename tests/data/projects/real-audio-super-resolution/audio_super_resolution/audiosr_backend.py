from __future__ import annotations

from .backends.audiosr_external import (
    AUDIOSR_MODEL_NAMES,
    AUDIOSR_SAMPLE_RATE,
    AudiosrBackend,
    _import_audiosr,
    _waveform_to_audio_array,
)

__all__ = [
    "AUDIOSR_MODEL_NAMES",
    "AUDIOSR_SAMPLE_RATE",
    "AudiosrBackend",
    "_import_audiosr",
    "_waveform_to_audio_array",
]
