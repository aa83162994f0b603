from __future__ import annotations

from .index_updater import IndexUpdater
from .indexer import Indexer
from .searcher import Searcher

__all__ = [
    "Indexer",
    "IndexUpdater",
    "Searcher",
]
