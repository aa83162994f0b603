"""
The `utils` module contains classes and methods that provide
more general utilities that are used across the package. Most of this
functionality cannot be appropriately confined to just one module, and
thus is included here.

"""
from .utils import _is_lua_trained_model
from .utils import get_indices_and_probabilities
from .utils import initialize_logger
from .utils import load_features_list
from .utils import load_model_from_state_dict
from .performance_metrics import PerformanceMetrics
from .performance_metrics import visualize_roc_curves
from .performance_metrics import visualize_precision_recall_curves
from .performance_metrics import auc_u_test
from .config import load
from .config import load_path
from .config import instantiate
from .config_utils import initialize_model
from .config_utils import execute
from .config_utils import load_and_parse_configs_and_run
from .config_utils import parse_configs_and_run
from .multi_model_wrapper import MultiModelWrapper
from .non_strand_specific_module import NonStrandSpecific
from .example_model import DeeperDeepSEA

__all__ = ["_is_lua_trained_model",
           "initialize_logger",
           "load_features_list",
           "load_model_from_state_dict",
           "PerformanceMetrics",
           "load",
           "load_path",
           "load_and_parse_configs_and_run",
           "instantiate",
           "get_indices_and_probabilities",
           "visualize_roc_curves",
           "visualize_precision_recall_curves",
           "initialize_model",
           "execute",
           "parse_configs_and_run",
           "MultiModelWrapper",
           "NonStrandSpecific",
           "DeeperDeepSEA"]
