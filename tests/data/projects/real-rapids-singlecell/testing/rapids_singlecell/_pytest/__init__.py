from __future__ import annotations

from .marks import needs
