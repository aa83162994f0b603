"""Core data structures for point cloud processing."""

__all__ = ["BoundingBox", "PointCloud", "PointCloudSeries", "read"]

from ._bounding_box import BoundingBox
from ._point_cloud import *
from ._read import *
