# isort: off

import rl_zoo3.gym_patches  # noqa: F401

# isort: on

from rl_zoo3._version import __version__
from rl_zoo3.utils import (
    ALGOS,
    create_test_env,
    get_latest_run_id,
    get_saved_hyperparams,
    get_trained_models,
    get_wrapper_class,
    linear_schedule,
)

__all__ = [
    "ALGOS",
    "__version__",
    "create_test_env",
    "get_latest_run_id",
    "get_saved_hyperparams",
    "get_trained_models",
    "get_wrapper_class",
    "linear_schedule",
]
