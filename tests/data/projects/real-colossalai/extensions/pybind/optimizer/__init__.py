from .fused_optimizer_cuda import FusedOptimizerCudaExtension

__all__ = ["FusedOptimizerCudaExtension"]
