__all__ = ["create_gpt2_model"]

from .gpt2 import create_gpt2_model
