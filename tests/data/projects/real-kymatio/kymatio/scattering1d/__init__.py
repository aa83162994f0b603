from .frontend.entry import ScatteringEntry1D

__all__ = ['ScatteringEntry1D']
