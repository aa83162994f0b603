from .musiceval_dataset import MusicEval

__all__ = ["MusicEval"]
