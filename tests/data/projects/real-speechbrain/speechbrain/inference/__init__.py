"""Importing all the inference interfaces"""

from . import *  # noqa
from .ASR import *  # noqa
from .classifiers import *  # noqa
from .diarization import *  # noqa
from .encoders import *  # noqa
from .enhancement import *  # noqa
from .interfaces import *  # noqa
from .separation import *  # noqa
from .SLU import *  # noqa
from .speaker import *  # noqa
from .ST import *  # noqa
from .text import *  # noqa
from .TTS import *  # noqa
from .VAD import *  # noqa
from .vocoders import *  # noqa
