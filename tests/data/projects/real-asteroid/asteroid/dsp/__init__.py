from .consistency import mixture_consistency
from .overlap_add import LambdaOverlapAdd, DualPathProcessing
from .beamforming import (
    SCM,
    Beamformer,
    RTFMVDRBeamformer,
    SoudenMVDRBeamformer,
    SDWMWFBeamformer,
    GEVBeamformer,
)

__all__ = [
    "mixture_consistency",
    "LambdaOverlapAdd",
    "DualPathProcessing",
]
