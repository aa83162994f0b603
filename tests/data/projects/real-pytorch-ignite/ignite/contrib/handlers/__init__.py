from ignite.handlers import (  # ref  # ref
    clearml_logger,
    EpochOutputStore,
    global_step_from_engine,
    mlflow_logger,
    neptune_logger,
    polyaxon_logger,
    tensorboard_logger,
    tqdm_logger,
    visdom_logger,
    wandb_logger,
)
from ignite.handlers.clearml_logger import ClearMLLogger
from ignite.handlers.lr_finder import FastaiLRFinder
from ignite.handlers.mlflow_logger import MLflowLogger
from ignite.handlers.neptune_logger import NeptuneLogger
from ignite.handlers.param_scheduler import (
    ConcatScheduler,
    CosineAnnealingScheduler,
    create_lr_scheduler_with_warmup,
    LinearCyclicalScheduler,
    LRScheduler,
    ParamGroupScheduler,
    PiecewiseLinear,
)
from ignite.handlers.polyaxon_logger import PolyaxonLogger
from ignite.handlers.tensorboard_logger import TensorboardLogger
from ignite.handlers.time_profilers import BasicTimeProfiler, HandlersTimeProfiler
from ignite.handlers.tqdm_logger import ProgressBar

from ignite.handlers.visdom_logger import VisdomLogger
from ignite.handlers.wandb_logger import WandBLogger
