"""This module contains functions for plotting audio-related data."""

from .plotting import play_audio, plot_specgram, plot_waveform  # noqa: F401
