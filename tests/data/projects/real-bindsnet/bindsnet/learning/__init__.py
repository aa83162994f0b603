from bindsnet.learning.learning import (
    MSTDP,
    MSTDPET,
    DiehlAndCook,
    Hebbian,
    LearningRule,
    NoOp,
    PostPre,
    Rmax,
    WeightDependentPostPre,
)

__all__ = [
    "LearningRule",
    "NoOp",
    "PostPre",
    "WeightDependentPostPre",
    "Hebbian",
    "DiehlAndCook",
    "MSTDP",
    "MSTDPET",
    "Rmax",
]
