from .adam_atan2 import AdamATan2


__all__ = [
    "AdamATan2"
]
