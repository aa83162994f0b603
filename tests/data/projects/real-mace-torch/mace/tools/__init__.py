from .arg_parser import build_default_arg_parser, build_preprocess_arg_parser
from .arg_parser_tools import check_args
from .cg import U_matrix_real
from .checkpoint import CheckpointHandler, CheckpointIO, CheckpointState
from .default_keys import DefaultKeys
from .finetuning_utils import load_foundations, load_foundations_elements
from .torch_tools import (
    TensorDict,
    cartesian_to_spherical,
    count_parameters,
    init_device,
    init_wandb,
    set_default_dtype,
    set_seeds,
    spherical_to_cartesian,
    to_numpy,
    to_one_hot,
    voigt_to_matrix,
)
from .train import SWAContainer, evaluate, train
from .utils import (
    AtomicNumberTable,
    MetricsLogger,
    atomic_numbers_to_indices,
    compute_c,
    compute_mae,
    compute_q95,
    compute_rel_mae,
    compute_rel_rmse,
    compute_rmse,
    get_atomic_number_table_from_zs,
    get_tag,
    setup_logger,
)

__all__ = [
    "TensorDict",
    "AtomicNumberTable",
    "atomic_numbers_to_indices",
    "to_numpy",
    "to_one_hot",
    "build_default_arg_parser",
    "check_args",
    "DefaultKeys",
    "set_seeds",
    "init_device",
    "setup_logger",
    "get_tag",
    "count_parameters",
    "MetricsLogger",
    "get_atomic_number_table_from_zs",
    "train",
    "evaluate",
    "SWAContainer",
    "CheckpointHandler",
    "CheckpointIO",
    "CheckpointState",
    "set_default_dtype",
    "compute_mae",
    "compute_rel_mae",
    "compute_rmse",
    "compute_rel_rmse",
    "compute_q95",
    "compute_c",
    "U_matrix_real",
    "spherical_to_cartesian",
    "cartesian_to_spherical",
    "voigt_to_matrix",
    "init_wandb",
    "load_foundations",
    "load_foundations_elements",
    "build_preprocess_arg_parser",
]
