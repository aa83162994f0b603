from .distributed import Distributed

__all__ = ["Distributed"]
