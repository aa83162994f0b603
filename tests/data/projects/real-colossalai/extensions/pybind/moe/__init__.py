from .moe_cuda import MoeCudaExtension

__all__ = ["MoeCudaExtension"]
