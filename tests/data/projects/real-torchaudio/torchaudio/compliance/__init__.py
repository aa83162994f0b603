from . import kaldi

__all__ = [
    "kaldi",
]
