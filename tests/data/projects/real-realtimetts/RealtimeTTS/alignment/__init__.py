from .base import (
    CharacterAligner,
    CharacterAlignment,
    SpeechSegment,
    VoiceActivityDetector,
    WordAlignment,
    WordAligner,
)
from .fake import FakeWordAligner
from .omniasr import OmniASRCTCAligner
from .torchaudio_fa import TorchaudioMMSFACharacterAligner
from .vad import SileroVoiceActivityDetector
from .wav_transcript import (
    WavTranscriptCharacterAligner,
    align_wav_transcript_characters,
)

__all__ = [
    "CharacterAligner",
    "CharacterAlignment",
    "FakeWordAligner",
    "OmniASRCTCAligner",
    "SileroVoiceActivityDetector",
    "SpeechSegment",
    "TorchaudioMMSFACharacterAligner",
    "VoiceActivityDetector",
    "WavTranscriptCharacterAligner",
    "WordAlignment",
    "WordAligner",
    "align_wav_transcript_characters",
]
