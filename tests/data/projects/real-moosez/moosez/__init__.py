from .moosez import moose

__all__ = ['moose']