"""V-JEPA 2 — Self-Supervised Video Models (community fork with MPS, ST-A², bugfixes).

Published on PyPI as `cc-vjepa2`.
Install: pip install cc-vjepa2

Import: from vjepa2.models.vision_transformer import VisionTransformer
"""
from pathlib import Path as _Path

__version__ = "0.0.3"
__file_root__ = str(_Path(__file__).parent.parent)
