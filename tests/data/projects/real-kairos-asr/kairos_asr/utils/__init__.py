from .logger import setup_logging
from . import audio_utils
from .audio_utils import *
from .device_utils import check_device, normalize_device
from .text_processing import extract_sentences_from_words

__all__ = [
    "setup_logging",
    "check_device",
    "normalize_device",
    "extract_sentences_from_words",
    "audio_utils",
]
