from .config import ColBERTConfig, RunConfig
from .run import Run

__all__ = ["Run", "ColBERTConfig", "RunConfig"]
