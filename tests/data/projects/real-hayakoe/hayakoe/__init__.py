import os as _os


_os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")

from hayakoe.api.audio_result import AudioResult, PhonemeTiming, streaming_wav_header
from hayakoe.api.speaker import Speaker
from hayakoe.api.tts import TTS, Lang


__all__ = [
    "TTS",
    "Lang",
    "AudioResult",
    "PhonemeTiming",
    "Speaker",
    "streaming_wav_header",
]
