# This file is a part of the `nequip` package. Please see LICENSE and README at the root for information on using it.
from .softadapt import SoftAdapt
from .loss_coeff_scheduler import (
    LossCoefficientScheduler,
    LinearLossCoefficientScheduler,
)
from .loss_coeff_monitor import LossCoefficientMonitor
from .write_xyz import TestTimeXYZFileWriter, ValTimeXYZFileWriter
from .wandb_watch import WandbWatch
from .tf32_scheduler import TF32Scheduler
from .training_stats import TrainingStatsMonitor
from .profiler import TorchProfilerCallback

__all__ = [
    "SoftAdapt",
    "LossCoefficientScheduler",
    "LinearLossCoefficientScheduler",
    "LossCoefficientMonitor",
    "TF32Scheduler",
    "TestTimeXYZFileWriter",
    "ValTimeXYZFileWriter",
    "WandbWatch",
    "TrainingStatsMonitor",
    "TorchProfilerCallback",
]
