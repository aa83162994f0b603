"""Utility modules for image processing and annotation."""

from .scaling import ScalingManager, InterpolationMethod, ImageDimensions
from .image_utils import ImageProcessor
from .visualization import VisualizationManager
from .standalone_viz import MultiMaskViewer, view_masks, find_classes_csv

__all__ = [
    'ScalingManager',
    'InterpolationMethod',
    'ImageDimensions',
    'ImageProcessor',
    'VisualizationManager',
    'MultiMaskViewer',
    'view_masks',
    'find_classes_csv',
]