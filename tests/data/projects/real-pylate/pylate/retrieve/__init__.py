from __future__ import annotations

from .colbert import ColBERT
from .xtr import XTR

__all__ = ["ColBERT", "XTR"]
