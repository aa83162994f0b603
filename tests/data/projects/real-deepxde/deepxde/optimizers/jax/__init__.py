__all__ = ["get", "is_external_optimizer", "apply_updates"]

from .optimizers import get, is_external_optimizer, apply_updates
