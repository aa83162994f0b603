from __future__ import annotations

from .preprocessing import *
