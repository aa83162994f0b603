"""Stage-level pure-function evaluators for all five pipeline stages."""

from aquapose.evaluation.stages.association import (
    DEFAULT_GRID as ASSOCIATION_DEFAULT_GRID,
)
from aquapose.evaluation.stages.association import (
    AssociationMetrics,
    evaluate_association,
)
from aquapose.evaluation.stages.detection import DetectionMetrics, evaluate_detection
from aquapose.evaluation.stages.fragmentation import (
    FragmentationMetrics,
    evaluate_fragmentation,
    evaluate_fragmentation_2d,
)
from aquapose.evaluation.stages.midline import MidlineMetrics, evaluate_midline
from aquapose.evaluation.stages.reconstruction import (
    DEFAULT_GRID as RECONSTRUCTION_DEFAULT_GRID,
)
from aquapose.evaluation.stages.reconstruction import (
    ReconstructionMetrics,
    ZDenoisingMetrics,
    compute_curvature_stratified,
    compute_per_point_error,
    compute_z_denoising_metrics,
    evaluate_reconstruction,
)
from aquapose.evaluation.stages.smoothing import SmoothingMetrics, evaluate_smoothing
from aquapose.evaluation.stages.stitching import StitchingMetrics, evaluate_stitching
from aquapose.evaluation.stages.tracking import TrackingMetrics, evaluate_tracking

__all__ = [
    "ASSOCIATION_DEFAULT_GRID",
    "RECONSTRUCTION_DEFAULT_GRID",
    "AssociationMetrics",
    "DetectionMetrics",
    "FragmentationMetrics",
    "MidlineMetrics",
    "ReconstructionMetrics",
    "SmoothingMetrics",
    "StitchingMetrics",
    "TrackingMetrics",
    "ZDenoisingMetrics",
    "compute_curvature_stratified",
    "compute_per_point_error",
    "compute_z_denoising_metrics",
    "evaluate_association",
    "evaluate_detection",
    "evaluate_fragmentation",
    "evaluate_fragmentation_2d",
    "evaluate_midline",
    "evaluate_reconstruction",
    "evaluate_smoothing",
    "evaluate_stitching",
    "evaluate_tracking",
]
