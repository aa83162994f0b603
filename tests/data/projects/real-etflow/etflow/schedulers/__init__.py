from .CosineAnnealingWarmRestarts import CosineAnnealingWarmupRestarts

__all__ = ["CosineAnnealingWarmupRestarts"]
