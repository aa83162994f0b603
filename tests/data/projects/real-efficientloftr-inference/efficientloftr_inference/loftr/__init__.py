# Modified for efficientloftr-inference, 2026: package exports.
# Upstream: zju3dv/EfficientLoFTR @ ffd4a464 (Apache-2.0). See NOTICE and CHANGES.md.
from .loftr import LoFTR, reparameter

__all__ = ["LoFTR", "reparameter"]
