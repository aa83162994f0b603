__all__ = ["get", "is_external_optimizer"]

from .optimizers import get, is_external_optimizer
