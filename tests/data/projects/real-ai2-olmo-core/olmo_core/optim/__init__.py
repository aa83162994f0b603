from .adam import AdamConfig
from .adamw import AdamWConfig, SkipStepAdamW, SkipStepAdamWConfig
from .config import OptimConfig, OptimGroupOverride
from .lion import Lion, LionConfig, SkipStepLion, SkipStepLionConfig
from .scheduler import (
    ConstantScheduler,
    ConstantWithWarmup,
    CosWithWarmup,
    InvSqrtWithWarmup,
    LinearWithWarmup,
    Scheduler,
    SequentialScheduler,
)
from .skip_step_optimizer import SkipStepOptimizer

__all__ = [
    "OptimConfig",
    "OptimGroupOverride",
    "SkipStepOptimizer",
    "AdamWConfig",
    "SkipStepAdamWConfig",
    "SkipStepAdamW",
    "AdamConfig",
    "LionConfig",
    "Lion",
    "SkipStepLionConfig",
    "SkipStepLion",
    "Scheduler",
    "ConstantScheduler",
    "ConstantWithWarmup",
    "CosWithWarmup",
    "InvSqrtWithWarmup",
    "LinearWithWarmup",
    "SequentialScheduler",
]
