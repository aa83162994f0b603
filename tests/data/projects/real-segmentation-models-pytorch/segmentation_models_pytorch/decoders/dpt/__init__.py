from .model import DPT

__all__ = ["DPT"]
