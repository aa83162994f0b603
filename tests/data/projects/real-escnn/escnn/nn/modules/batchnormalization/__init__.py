
from .inner import InnerBatchNorm
from .norm import NormBatchNorm
from .induced_norm import InducedNormBatchNorm
from .gnorm import GNormBatchNorm
from .iid import _IIDBatchNorm, IIDBatchNorm1d, IIDBatchNorm2d, IIDBatchNorm3d

__all__ = [
    "InnerBatchNorm",
    "NormBatchNorm",
    "InducedNormBatchNorm",
    "GNormBatchNorm",
    "_IIDBatchNorm",
    "IIDBatchNorm1d",
    "IIDBatchNorm2d",
    "IIDBatchNorm3d",
]
