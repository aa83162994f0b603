from recbole.utils.logger import init_logger, set_color
from recbole.utils.utils import (
    get_local_time,
    ensure_dir,
    get_model,
    get_trainer,
    get_environment,
    early_stopping,
    calculate_valid_score,
    dict2str,
    init_seed,
    get_tensorboard,
    get_gpu_usage,
    get_flops,
    list_to_latex,
)
from recbole.utils.enum_type import *
from recbole.utils.argument_list import *
from recbole.utils.wandblogger import WandbLogger

__all__ = [
    "init_logger",
    "get_local_time",
    "ensure_dir",
    "get_model",
    "get_trainer",
    "early_stopping",
    "calculate_valid_score",
    "dict2str",
    "Enum",
    "ModelType",
    "KGDataLoaderState",
    "EvaluatorType",
    "InputType",
    "FeatureType",
    "FeatureSource",
    "init_seed",
    "general_arguments",
    "training_arguments",
    "evaluation_arguments",
    "dataset_arguments",
    "get_tensorboard",
    "set_color",
    "get_gpu_usage",
    "get_flops",
    "get_environment",
    "list_to_latex",
    "WandbLogger",
]
