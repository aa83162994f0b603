"""Utility modules for image processing and annotation."""

from .scaling import ScalingManager, InterpolationMethod, ImageDimensions
from .image_utils import ImageProcessor
from .visualization import VisualizationManager

__all__ = [
    'ScalingManager',
    'InterpolationMethod',
    'ImageDimensions',
    'ImageProcessor',
    'VisualizationManager',
]