from .vllm import VLLM

__all__ = ["VLLM"]
