from .diarizer import Diarizer, AudioFormatError
from .streaming import DiarizationSession
from .utils import speaker_similarity, save_json, save_rttm

from . import config
if not config.DARWIN:
    from .camplusplus import CAMPPlus
