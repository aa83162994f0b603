from .audio_processor import AudioProcessor
from .config import WhisperLiveKitConfig
from .core import TranscriptionEngine
from .parse_args import parse_args
from .test_client import TranscriptionResult, transcribe_audio
from .test_harness import TestHarness, TestState
from .web.web_interface import get_inline_ui_html, get_web_interface_html

__all__ = [
    "WhisperLiveKitConfig",
    "TranscriptionEngine",
    "AudioProcessor",
    "parse_args",
    "transcribe_audio",
    "TranscriptionResult",
    "TestHarness",
    "TestState",
    "get_web_interface_html",
    "get_inline_ui_html",
]
