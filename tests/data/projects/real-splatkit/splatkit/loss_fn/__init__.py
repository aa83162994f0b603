from .base import SplatLossFn
from ._3dgs import Splat3DGSLossFn
from ._2dgs import Splat2DGSLossFn

__all__ = ['SplatLossFn', 'Splat3DGSLossFn', 'Splat2DGSLossFn']