"""Evaluation utilities for depth map and surface quality assessment."""

from .alignment import icp_align
from .metrics import cloud_to_cloud_distance, height_map_difference, reprojection_error

__all__ = [
    "icp_align",
    "cloud_to_cloud_distance",
    "height_map_difference",
    "reprojection_error",
]
