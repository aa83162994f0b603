from reflectorch.runs.train import (
    run_train,
    run_train_on_cluster,
    run_test_config,
)

from reflectorch.runs.utils import (
    train_from_config,
    get_trainer_from_config,
    get_paths_from_config,
    get_callbacks_from_config,
    get_trainer_by_name,
    get_callbacks_by_name,
    convert_pt_to_safetensors,
)

from reflectorch.runs.config import load_config

__all__ = [
    'run_train',
    'run_train_on_cluster',
    'train_from_config',
    'run_test_config',
    'get_trainer_from_config',
    'get_paths_from_config',
    'get_callbacks_from_config',
    'get_trainer_by_name',
    'get_callbacks_by_name',
    'convert_pt_to_safetensors',
    'load_config',
]
