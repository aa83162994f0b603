# Copyright © 2023 Apple Inc.

from . import load_models
from . import audio
from . import decoding
from .transcribe import transcribe
