from .backends import torch_tensorrt_backend  # noqa: F401
