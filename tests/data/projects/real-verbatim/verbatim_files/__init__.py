"""
Transcription/output file utilities: format writers and RTTM/VTTM helpers.
"""

from .rttm import (
    Annotation,
    Segment,
    dumps_rttm,
    load_rttm,
    loads_rttm,
    rttm_to_vttm,
    vttm_to_rttm,
    write_rttm_file,
)
from .vttm import AudioRef, dumps_vttm, load_vttm, loads_vttm, write_vttm_file

__all__ = [
    "Annotation",
    "AudioRef",
    "Segment",
    "dumps_rttm",
    "dumps_vttm",
    "load_rttm",
    "load_vttm",
    "loads_rttm",
    "loads_vttm",
    "rttm_to_vttm",
    "vttm_to_rttm",
    "write_rttm_file",
    "write_vttm_file",
]
