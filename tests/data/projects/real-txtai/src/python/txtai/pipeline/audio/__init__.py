"""
Audio imports
"""

from .audiomixer import AudioMixer
from .audiostream import AudioStream
from .microphone import Microphone
from .signal import Signal
from .texttoaudio import TextToAudio
from .texttospeech import TextToSpeech
from .transcription import Transcription
