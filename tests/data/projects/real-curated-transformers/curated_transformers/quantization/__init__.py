from .helpers import prepare_module_for_quantization
from .quantizable import Quantizable

__all__ = [
    "Quantizable",
    "prepare_module_for_quantization",
]
