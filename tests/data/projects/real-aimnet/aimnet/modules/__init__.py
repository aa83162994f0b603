from .aev import AEVSV, ConvSV  # noqa: F401
from .core import MLP, AtomicShift, AtomicSum, Dipole, Embedding, Forces, Output, Quadrupole  # noqa: F401
from .lr import D3TS, DFTD3, LRCoulomb, SRCoulomb  # noqa: F401
