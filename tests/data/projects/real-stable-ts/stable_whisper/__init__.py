from .whisper_word_level import *
from .result import *
from .text_output import *
from .video_output import *
from .stabilization import visualize_suppression
from .non_whisper import transcribe_any, Aligner, Refiner
from ._version import __version__
from .whisper_compatibility import _required_whisper_ver, _COMPATIBLE_WHISPER_VERSIONS, IS_WHISPERLESS_VERSION
