__all__ = [
    "__version__",
    "DTCWTForward",
    "DTCWTInverse",
    "DWTForward",
    "DWTInverse",
    "DWT1DForward",
    "DWT1DInverse",
    "DTCWT",
    "IDTCWT",
    "DWT",
    "IDWT",
    "DWT1D",
    "DWT2D",
    "IDWT1D",
    "IDWT2D",
    "ScatLayer",
    "ScatLayerj2",
]

from .dtcwt.transform2d import DTCWTForward, DTCWTInverse
from .dwt.transform2d import DWTForward, DWTInverse
from .dwt.transform1d import DWT1DForward, DWT1DInverse
from ._version import __version__
from .scatternet import ScatLayer, ScatLayerj2

# Some aliases
DTCWT = DTCWTForward
IDTCWT = DTCWTInverse
DWT = DWTForward
IDWT = DWTInverse
DWT2D = DWT
IDWT2D = IDWT

DWT1D = DWT1DForward
IDWT1D = DWT1DInverse
