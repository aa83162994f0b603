from .adam import FastAdam
from .adamw import FastAdamW
from .lion import FastLion
from .muon import FastMuon

__all__ = ["FastAdam", "FastAdamW", "FastLion", "FastMuon"]
