from ._activation_function import activation_fn_dict
from ._architectures import architecture_dict
from ._initial_condition import ic_dict
from ._metrics import metric_dict
from ._optimization import lr_scheduler_dict, optimizer_dict

__all__ = [
    "metric_dict",
    "lr_scheduler_dict",
    "optimizer_dict",
    "ic_dict",
    "activation_fn_dict",
    "architecture_dict",
]
