"""Supported configuration options.

Used throughout the code to ensure consistency. These should be kept in sync with the
corresponding configuration options in the Pydantic models.
"""

__all__ = [
    "SupportedActivation",
    "SupportedAlgorithm",
    "SupportedArchitecture",
    "SupportedAugmentation",
    "SupportedData",
    "SupportedLogger",
    "SupportedLoss",
    "SupportedNormalization",
    "SupportedOptimizer",
    "SupportedPixelManipulation",
    "SupportedScheduler",
    "SupportedStructAxis",
    "SupportedTransform",
]


from .supported_activations import SupportedActivation
from .supported_algorithms import SupportedAlgorithm
from .supported_architectures import SupportedArchitecture
from .supported_data import SupportedData
from .supported_loggers import SupportedLogger
from .supported_losses import SupportedLoss
from .supported_normalization import SupportedNormalization
from .supported_optimizers import SupportedOptimizer, SupportedScheduler
from .supported_pixel_manipulations import SupportedPixelManipulation
from .supported_struct_axis import SupportedStructAxis
from .supported_transforms import SupportedAugmentation, SupportedTransform
