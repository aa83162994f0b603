from __future__ import annotations

from .colbert import ColBERT
from .Dense import Dense

__all__ = ["ColBERT", "Dense"]
