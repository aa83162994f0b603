# This file is a part of the `nequip` package. Please see LICENSE and README at the root for information on using it.
from .metrics import (
    MeanAbsoluteError,
    MeanSquaredError,
    RootMeanSquaredError,
    MaximumAbsoluteError,
    HuberLoss,
    StratifiedHuberForceLoss,
)
from .metrics_manager import (
    MetricsManager,
    EnergyForceLoss,
    EnergyForceMetrics,
    EnergyForceStressLoss,
    EnergyForceStressMetrics,
    EnergyOnlyLoss,
    EnergyOnlyMetrics,
)
from .lightning import NequIPLightningModule
from .ema import EMALightningModule
from .config import ConFIGLightningModule, EMAConFIGLightningModule
from .simple_ddp import SimpleDDPStrategy
from .schedulefree import ScheduleFreeLightningModule
from .muon import MuonWithAuxAdam

__all__ = [
    "NequIPLightningModule",
    "EMALightningModule",
    "ConFIGLightningModule",
    "EMAConFIGLightningModule",
    "ScheduleFreeLightningModule",
    "MetricsManager",
    "EnergyForceLoss",
    "EnergyForceMetrics",
    "EnergyForceStressLoss",
    "EnergyForceStressMetrics",
    "EnergyOnlyLoss",
    "EnergyOnlyMetrics",
    "MeanAbsoluteError",
    "MeanSquaredError",
    "RootMeanSquaredError",
    "MaximumAbsoluteError",
    "HuberLoss",
    "StratifiedHuberForceLoss",
    "SimpleDDPStrategy",
    "MuonWithAuxAdam",
]
