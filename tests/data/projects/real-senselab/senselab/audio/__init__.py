"""This module contains implementations related to audio processing."""
