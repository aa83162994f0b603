import catenets.logger as log

try:
    from . import jax
except ImportError:
    log.error("JAX models disabled")

try:
    from . import torch
except ImportError:
    log.error("PyTorch models disabled")

__all__ = ["jax", "torch"]
