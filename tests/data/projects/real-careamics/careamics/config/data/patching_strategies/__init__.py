"""Patching strategies Pydantic models."""

__all__ = [
    "FixedRandomPatchingConfig",
    "RandomPatchingConfig",
    "SequentialPatchingConfig",
    "StratifiedPatchingConfig",
    "TiledPatchingConfig",
    "WholePatchingConfig",
]


from .random_patching_config import FixedRandomPatchingConfig, RandomPatchingConfig
from .sequential_patching_config import SequentialPatchingConfig
from .stratified_patching_config import StratifiedPatchingConfig
from .tiled_patching_config import TiledPatchingConfig
from .whole_patching_config import WholePatchingConfig
