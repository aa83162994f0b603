from .sswarm import SSWARM


__all__ = ["SSWARM"]
