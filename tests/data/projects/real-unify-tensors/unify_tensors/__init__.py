__all__ = ["unify_tensors"]
from .unify_tensors import unify_tensors