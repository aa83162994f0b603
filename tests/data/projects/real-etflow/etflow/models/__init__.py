from .model import BaseFlow

__all__ = ["BaseFlow"]
