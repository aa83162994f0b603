"""
PyTorch-based implementations for the CATE estimators.
"""
from .flextenet import FlexTENet
from .pseudo_outcome_nets import (
    DRLearner,
    PWLearner,
    RALearner,
    RLearner,
    ULearner,
    XLearner,
)
from .representation_nets import DragonNet, TARNet
from .slearner import SLearner
from .snet import SNet
from .tlearner import TLearner

__all__ = [
    "TLearner",
    "SLearner",
    "TARNet",
    "DragonNet",
    "XLearner",
    "RLearner",
    "ULearner",
    "RALearner",
    "PWLearner",
    "DRLearner",
    "SNet",
    "FlexTENet",
]
