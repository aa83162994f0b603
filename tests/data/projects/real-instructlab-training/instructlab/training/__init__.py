__all__ = (
    "DataProcessArgs",
    "DeepSpeedOffloadStrategy",
    "DeepSpeedOptions",
    "LoraOptions",
    "QuantizeDataType",
    "TorchrunArgs",
    "TrainerCallback",
    "TrainingArgs",
    "TrainingContext",
    "run_training",
    "FSDPOptions",
    "ShardingStrategies",
    "DistributedBackend",
    "PretrainingConfig",
)

# First Party
import instructlab.training.logger  # Disable package logging by default

# Local
from .callbacks import TrainerCallback, TrainingContext
from .config import (
    DataProcessArgs,
    DeepSpeedOffloadStrategy,
    DeepSpeedOptions,
    DistributedBackend,
    FSDPOptions,
    LoraOptions,
    PretrainingConfig,
    QuantizeDataType,
    ShardingStrategies,
    TorchrunArgs,
    TrainingArgs,
)


# defer import of main_ds
def run_training(torch_args: TorchrunArgs, train_args: TrainingArgs) -> None:
    """Wrapper around the main training job that calls torchrun."""
    # Local
    from .main_ds import run_training

    return run_training(torch_args=torch_args, train_args=train_args)
