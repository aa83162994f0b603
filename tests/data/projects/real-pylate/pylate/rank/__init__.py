from __future__ import annotations

from .rank import RerankResult, rerank, score_xtr

__all__ = ["rerank", "score_xtr", "RerankResult"]
