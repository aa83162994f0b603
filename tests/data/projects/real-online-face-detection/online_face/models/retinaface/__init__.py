"""RetinaFace network + box utilities (biubug6 architecture)."""
from __future__ import annotations

from .box import decode, decode_landm, prior_box
from .net import build_retinaface, cfg_mnet, cfg_re50

__all__ = ["build_retinaface", "cfg_mnet", "cfg_re50", "prior_box", "decode", "decode_landm"]
