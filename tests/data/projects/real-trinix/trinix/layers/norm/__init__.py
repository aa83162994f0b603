from .layernorm import FastLayerNorm
from .rmsnorm import FastRMSNorm

__all__ = ["FastLayerNorm", "FastRMSNorm"]
