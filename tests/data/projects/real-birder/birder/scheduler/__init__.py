from birder.scheduler.cooldown import CooldownLR
from birder.scheduler.reciprocal_sqrt import ReciprocalSquareRootLR

__all__ = [
    "CooldownLR",
    "ReciprocalSquareRootLR",
]
