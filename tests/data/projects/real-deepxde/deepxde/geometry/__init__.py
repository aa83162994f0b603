__all__ = [
    "CSGDifference",
    "CSGIntersection",
    "CSGUnion",
    "Cuboid",
    "Disk",
    "Ellipse",
    "Geometry",
    "GeometryXTime",
    "Hypercube",
    "Hypersphere",
    "Interval",
    "PointCloud",
    "Polygon",
    "Rectangle",
    "Sphere",
    "StarShaped",
    "TimeDomain",
    "Triangle",
    "sample",
]

from .csg import CSGDifference, CSGIntersection, CSGUnion
from .geometry import Geometry
from .geometry_1d import Interval
from .geometry_2d import Disk, Ellipse, Polygon, Rectangle, StarShaped, Triangle
from .geometry_3d import Cuboid, Sphere
from .geometry_nd import Hypercube, Hypersphere
from .pointcloud import PointCloud
from .sampler import sample
from .timedomain import GeometryXTime, TimeDomain
