"""Utility functions for NUFFT."""

from .fft import fftc, from_complex, ifftc, to_complex


__all__ = ["fftc", "ifftc", "to_complex", "from_complex"]
