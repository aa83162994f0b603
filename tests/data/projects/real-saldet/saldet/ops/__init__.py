from .tensor import flat, normalize
