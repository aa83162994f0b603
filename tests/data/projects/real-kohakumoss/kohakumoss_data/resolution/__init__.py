"""Resolution x batching planning: geometry, planners, batching, over-long fits."""

from kohakumoss_data.registry import PLANNERS
from kohakumoss_data.resolution.batching import BATCHINGS, BatchLimits
from kohakumoss_data.resolution.bucket import BucketPlanner
from kohakumoss_data.resolution.geometry import Geometry
from kohakumoss_data.resolution.keep import keep_indices
from kohakumoss_data.resolution.overlong import OVERLONG
from kohakumoss_data.resolution.resize import ResizePlanner
from kohakumoss_data.resolution.square import ShiftedSquarePlanner, SquareCropPlanner

__all__ = [
    "BATCHINGS",
    "OVERLONG",
    "PLANNERS",
    "BatchLimits",
    "BucketPlanner",
    "Geometry",
    "ResizePlanner",
    "ShiftedSquarePlanner",
    "SquareCropPlanner",
    "keep_indices",
]
