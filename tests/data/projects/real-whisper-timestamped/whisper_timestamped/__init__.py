from whisper import available_models, _download, _MODELS # defined in __init__.py
from whisper import audio, decoding, model, normalizers, tokenizer, utils
from whisper.audio import load_audio, log_mel_spectrogram, pad_or_trim
from whisper.decoding import DecodingOptions, DecodingResult, decode, detect_language
from whisper.model import Whisper, ModelDimensions

from .transcribe import transcribe_timestamped
from .transcribe import transcribe_timestamped as transcribe
from .transcribe import load_model
from .transcribe import __version__