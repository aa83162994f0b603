from .utils import get_module_forward_input_names, weighted_average
from .estimator import PyTorchEstimator
