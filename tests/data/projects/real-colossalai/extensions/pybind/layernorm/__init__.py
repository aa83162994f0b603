from .layernorm_cuda import LayerNormCudaExtension

__all__ = ["LayerNormCudaExtension"]
