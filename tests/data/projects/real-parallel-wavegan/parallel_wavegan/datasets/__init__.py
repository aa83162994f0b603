from .audio_mel_dataset import *  # NOQA
from .scp_dataset import *  # NOQA
