from .ops import get_backend, set_backend

__all__ = ["get_backend", "set_backend"]
