from __future__ import annotations

from .decoupler_gpu import *
