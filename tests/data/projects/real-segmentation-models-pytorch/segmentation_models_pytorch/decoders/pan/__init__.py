from .model import PAN

__all__ = ["PAN"]
