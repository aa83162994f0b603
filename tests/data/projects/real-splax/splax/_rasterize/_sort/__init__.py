"""Intersection key emission, radix sort, and tile bin edges for rasterization.

_kernels holds the Warp device kernels, _sort the host orchestration that launches them around the
one intersection-count readback.
"""

from splax._rasterize._sort._sort import sort_and_bin

__all__ = ["sort_and_bin"]
