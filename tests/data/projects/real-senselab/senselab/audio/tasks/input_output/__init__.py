"""This module provides some utilities for audio input and output."""

from .utils import (
    get_audio_files_from_directory,  # noqa: F401
    get_valid_audio_paths,  # noqa: F401
    read_audios,  # noqa: F401
    save_audios,  # noqa: F401
)
