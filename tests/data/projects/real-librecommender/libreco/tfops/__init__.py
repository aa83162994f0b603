from .configs import (
    attention_config,
    dropout_config,
    lr_decay_config,
    reg_config,
    sess_config,
)
from .loss import choose_tf_loss
from .rebuild import rebuild_tf_model
from .variables import get_variable_from_graph, modify_variable_names, var_list_by_name
from .version import TF_VERSION, get_tf_version, tf

__all__ = [
    "attention_config",
    "dropout_config",
    "get_variable_from_graph",
    "lr_decay_config",
    "reg_config",
    "sess_config",
    "rebuild_tf_model",
    "choose_tf_loss",
    "modify_variable_names",
    "var_list_by_name",
    "tf",
    "TF_VERSION",
    "get_tf_version",
]
