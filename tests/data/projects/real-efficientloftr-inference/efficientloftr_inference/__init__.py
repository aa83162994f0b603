# Modified for efficientloftr-inference, 2026: package exports.
# Upstream: zju3dv/EfficientLoFTR @ ffd4a464 (Apache-2.0). See NOTICE and CHANGES.md.
"""Unofficial pip-installable packaging of EfficientLoFTR (zju3dv), Apache-2.0, inference only.

    import torch
    from efficientloftr_inference import LoFTR, full_config

    net = LoFTR(config=full_config(coarse_threshold=0.55)).eval()

This is NOT an official release. See CHANGES.md for every modification to the upstream source.
"""
from efficientloftr_inference.config import full_config
from efficientloftr_inference.loftr import LoFTR, reparameter

__all__ = ["LoFTR", "full_config", "reparameter"]
__version__ = "0.1.0"
