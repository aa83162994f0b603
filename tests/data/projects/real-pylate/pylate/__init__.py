from __future__ import annotations

from .__version__ import __version__

__all__ = [
    "evaluation",
    "indexes",
    "losses",
    "models",
    "rank",
    "retrieve",
    "scores",
    "utils",
    "__version__",
]
