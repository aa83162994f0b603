"""HuggingFace transformers integration for fused-turboquant."""

from fused_turboquant.hf.fused_cache import (
    CompressedKVCache,
    check_model_compatibility,
    patch_model,
    unpatch_model,
    FusedTurboQuantRunner,
)

__all__ = [
    "CompressedKVCache",
    "check_model_compatibility",
    "patch_model",
    "unpatch_model",
    "FusedTurboQuantRunner",
]
