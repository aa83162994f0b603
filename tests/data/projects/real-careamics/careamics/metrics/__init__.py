"""NG-compatible metrics."""

__all__ = ["SIPSNR", "SampleSIPSNR"]

from .psnr import SIPSNR, SampleSIPSNR
