from .base_config import BaseConfig
from .config import ColBERTConfig, RunConfig
from .settings import (
    DocSettings,
    IndexingSettings,
    ResourceSettings,
    RunSettings,
    SearchSettings,
)

__all__ = [
    "RunSettings",
    "TokenizerSettings",
    "ResourceSettings",
    "DocSettings",
    "IndexingSettings",
    "SearchSettings",
    "ColBERTConfig",
    "RunConfig",
    "BaseConfig",
]
