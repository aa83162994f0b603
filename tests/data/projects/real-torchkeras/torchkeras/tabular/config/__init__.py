from .config import (
    ModelConfig,
    InferredConfig,
    safe_merge_config,
)

__all__ = [
    "ModelConfig",
    "InferredConfig",
    "safe_merge_config",
]
