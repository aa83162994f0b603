from .asr import KairosASR
from . import dtypes


__all__ = ["KairosASR", "dtypes"]
