from .frontend.entry import HarmonicScatteringEntry3D


__all__ = ['HarmonicScatteringEntry3D']
