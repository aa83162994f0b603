from .config import BitsAndBytesConfig, Dtype4Bit
from .impl import prepare_for_quantization

__all__ = [
    "BitsAndBytesConfig",
    "Dtype4Bit",
    "prepare_for_quantization",
]
