from .graphsage_module import GraphSageDGLModel, GraphSageModel
from .lightgcn_module import LightGCNModel
from .ngcf_module import NGCFModel
from .pinsage_module import PinSageDGLModel, PinSageModel

__all__ = [
    "GraphSageModel",
    "GraphSageDGLModel",
    "LightGCNModel",
    "NGCFModel",
    "PinSageModel",
    "PinSageDGLModel",
]
