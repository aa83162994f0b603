from .fmms import FMMS

__all__ = ['FMMS']
