from __future__ import annotations

from .cached_contrastive import CachedContrastive
from .contrastive import Contrastive
from .distillation import Distillation

__all__ = ["Contrastive", "Distillation", "CachedContrastive"]
