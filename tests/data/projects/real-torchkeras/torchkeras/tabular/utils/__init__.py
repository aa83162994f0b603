from .data_utils import (
    get_balanced_sampler,
    get_class_weighted_cross_entropy,
    get_gaussian_centers,
    load_covertype_dataset,
    make_mixed_dataset,
    print_metrics,
)

from .nn_utils import (
    OOMException,
    OutOfMemoryHandler,
    _initialize_kaiming,
    _initialize_layers,
    _linear_dropout_bn,
    _make_ix_like,
    count_parameters,
    reset_all_weights,
    to_one_hot,
)
from .python_utils import (
    available_models,
    check_numpy,
    generate_doc_dataclass,
    getattr_nested,
    ifnone,
    int_to_human_readable,
)

__all__ = [
    "getattr_nested",
    "generate_doc_dataclass",
    "ifnone",
    "_initialize_layers",
    "_linear_dropout_bn",
    "reset_all_weights",
    "get_class_weighted_cross_entropy",
    "get_balanced_sampler",
    "get_gaussian_centers",
    "_make_ix_like",
    "to_one_hot",
    "_initialize_kaiming",
    "check_numpy",
    "OutOfMemoryHandler",
    "OOMException",
    "make_mixed_dataset",
    "print_metrics",
    "load_covertype_dataset",
    "count_parameters",
    "int_to_human_readable",
    "available_models"
]
