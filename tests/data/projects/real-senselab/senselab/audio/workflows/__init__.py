"""Workflows and pipelines for audio processing and analysis."""

from .explore_conversation import explore_conversation  # noqa: F401
