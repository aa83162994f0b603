from .model import AION

__all__ = ["AION"]
