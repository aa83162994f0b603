"""Optimisers (`optimizers/`), the OptimBundle (`bundle/`), parameter groups and
schedules."""

from kohakumoss.training.optim.bundle.base import (
    Bundle,
    all_reduce_max,
    local_grad_norm,
)
from kohakumoss.training.optim.bundle.build import build_bundle, build_scaler
from kohakumoss.training.optim.bundle.fused import FusedStepBundle
from kohakumoss.training.optim.groups import build_param_groups, last_block_qk_norm
from kohakumoss.training.optim.optimizers.adamw16 import AdamW16
from kohakumoss.training.optim.optimizers.factory import OPTIMIZERS
from kohakumoss.training.optim.optimizers.muon import MuonHybrid, newton_schulz
from kohakumoss.training.optim.schedule import build_schedule, schedule_config

__all__ = [
    "OPTIMIZERS",
    "AdamW16",
    "Bundle",
    "FusedStepBundle",
    "MuonHybrid",
    "all_reduce_max",
    "build_bundle",
    "build_param_groups",
    "build_scaler",
    "build_schedule",
    "last_block_qk_norm",
    "local_grad_norm",
    "newton_schulz",
    "schedule_config",
]
