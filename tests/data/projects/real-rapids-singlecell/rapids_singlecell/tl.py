from __future__ import annotations

from .tools import *
