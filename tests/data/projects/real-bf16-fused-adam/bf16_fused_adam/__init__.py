from .adamw import BF16FusedAdamW


__all__ = [
    "BF16FusedAdamW"
]
