from .inference_ops_cuda import InferenceOpsCudaExtension

__all__ = ["InferenceOpsCudaExtension"]
