"""Tensor operations on packed point clouds: neighbor search, voxelization, geometry, boxes, and serialization."""

from . import anchors, box3d, cluster, density, geometry, heatmap, hilbert, math, octree, serialization, voxelization

__all__ = [
    "anchors",
    "box3d",
    "cluster",
    "density",
    "geometry",
    "heatmap",
    "hilbert",
    "math",
    "octree",
    "serialization",
    "voxelization",
]
