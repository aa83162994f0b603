from .inference import PianoTranscription
from .config import sample_rate
from .utilities import load_audio