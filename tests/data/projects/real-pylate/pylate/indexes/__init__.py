from __future__ import annotations

from .plaid import PLAID
from .scann import ScaNN
from .tachiom import TachiomIndex
from .voyager import Voyager
from .warp import WARP

__all__ = [
    "Voyager",
    "PLAID",
    "ScaNN",
    "TachiomIndex",
    "WARP",
]
