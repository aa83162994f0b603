from .inference import AudioTagging, SoundEventDetection
from .config import labels

__version__ = "0.1.0"