from .checkpoints import load_checkpoint, save_checkpoint
from .metrics import (
    collect_targets,
    predict_demand,
    predict_elasticities,
    regression_metrics,
)
from .trainer import Trainer, resolve_device

__all__ = [
    "Trainer",
    "collect_targets",
    "load_checkpoint",
    "predict_demand",
    "predict_elasticities",
    "regression_metrics",
    "resolve_device",
    "save_checkpoint",
]
