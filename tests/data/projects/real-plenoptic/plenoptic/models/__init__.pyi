__all__ = [
    "LinearNonlinear",
    "LuminanceGainControl",
    "LuminanceContrastGainControl",
    "OnOff",
    "Identity",
    "Linear",
    "Gaussian",
    "CenterSurround",
    "PortillaSimoncelli",
    "DeepNetFeatures",
]

from .feature_extractor import DeepNetFeatures
from .frontend import (
    LinearNonlinear,
    LuminanceContrastGainControl,
    LuminanceGainControl,
    OnOff,
)
from .naive import CenterSurround, Gaussian, Identity, Linear
from .portilla_simoncelli import PortillaSimoncelli
