from .common import parse_config
from .md_config import MDConfig
from .train_config import (
    CallbackConfig,
    Config,
    DataConfig,
    LossConfig,
    MetricsConfig,
    ModelConfig,
    OptimizerConfig,
)

__all__ = [
    "Config",
    "DataConfig",
    "LossConfig",
    "CallbackConfig",
    "ModelConfig",
    "OptimizerConfig",
    "MetricsConfig",
    "MDConfig",
    "parse_config",
]
