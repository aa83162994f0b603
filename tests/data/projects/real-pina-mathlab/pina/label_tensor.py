"""Public API for LabeledTensor."""

from pina._src.core.label_tensor import LabelTensor

__all__ = ["LabelTensor"]
