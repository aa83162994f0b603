from .torchpoints import *
from .knn import knn
from .cluster import region_grow
from .metrics import instance_iou
from .cubic_feature_sampling import cubic_feature_sampling

__all__ = [
    "ball_query",
    "furthest_point_sample",
    "grouping_operation",
    "three_interpolate",
    "three_nn",
    "knn",
    "region_grow",
    "instance_iou",
    "chamfer_dist",
    "cubic_feature_sampling",
    "gridding",
]
