from .config import (
    DataConfig,
    ExperimentConfig,
    ExperimentRunManager,
    InferredConfig,
    ModelConfig,
    OptimizerConfig,
    SSLModelConfig,
    TrainerConfig,
    _validate_choices,
)

__all__ = [
    "TrainerConfig",
    "DataConfig",
    "ModelConfig",
    "InferredConfig",
    "ExperimentConfig",
    "OptimizerConfig",
    "SSLModelConfig",
    "ExperimentRunManager",
    "_validate_choices",
]
