"""Inference strategies for scenes larger than one forward pass: tiling, windows, and refinement."""

from .inferer import Inferer
from .knn_window import KNNWindowInferer, knn_window_inference
from .part_refinement import PartRefinementInferer, part_refinement_inference
from .potential_sphere import PotentialSphereInferer, potential_sphere_inference
from .simple import SimpleInferer
from .sliding_window import SlidingWindowInferer, sliding_window_inference
from .tta import TTAInferer, simple_tta_transforms
from .voxel_partition import VoxelPartitionInferer

__all__ = [
    "Inferer",
    "KNNWindowInferer",
    "knn_window_inference",
    "PartRefinementInferer",
    "part_refinement_inference",
    "PotentialSphereInferer",
    "potential_sphere_inference",
    "SimpleInferer",
    "SlidingWindowInferer",
    "sliding_window_inference",
    "TTAInferer",
    "simple_tta_transforms",
    "VoxelPartitionInferer",
]
