"""I/O subpackage for afx_audio."""
from afx_audio.io.io import load_audio

__all__ = ['load_audio']
