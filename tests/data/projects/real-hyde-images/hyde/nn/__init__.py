from . import comm, datasets, helper, parsers
from .call_nn_inference import NNInference
from .general_nn_utils import *
