from pl_bolts.optimizers.lars import LARS
from pl_bolts.optimizers.lr_scheduler import LinearWarmupCosineAnnealingLR, linear_warmup_decay

__all__ = [
    "LARS",
    "LinearWarmupCosineAnnealingLR",
    "linear_warmup_decay",
]
