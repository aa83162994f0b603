from rl4co.utils.instantiators import instantiate_callbacks, instantiate_loggers
from rl4co.utils.pylogger import get_pylogger
from rl4co.utils.rich_utils import enforce_tags, print_config_tree
from rl4co.utils.trainer import RL4COTrainer
from rl4co.utils.utils import (
    extras,
    get_metric_value,
    log_hyperparameters,
    show_versions,
    task_wrapper,
)
