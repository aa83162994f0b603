"""Ice sheet emulator models: ISEFlow, predictors, density estimators, and utilities.

This package provides ISEFlow (hybrid deep ensemble + normalizing flow), LSTM and
DeepEnsemble predictors, NormalizingFlow density estimators, loss modules, and
pretrained model loading for AIS and GrIS.
"""

from .deep_ensemble import DeepEnsemble
from .iseflow import ISEFlow, ISEFlow_AIS, ISEFlow_GrIS
from .lstm import LSTM
from .normalizing_flow import NormalizingFlow

__all__ = [
    "ISEFlow",
    "ISEFlow_AIS",
    "ISEFlow_GrIS",
    "DeepEnsemble",
    "LSTM",
    "NormalizingFlow",
]
