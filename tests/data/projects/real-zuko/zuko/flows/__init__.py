r"""Parameterized flows and transformations."""

from .autoregressive import MAF, MaskedAutoregressiveTransform
from .continuous import CNF, FFJTransform
from .core import (
    Flow,
    LazyDistribution,
    LazyInverse,
    LazyTransform,
    UnconditionalDistribution,
    UnconditionalTransform,
)
from .coupling import NICE, GeneralCouplingTransform, RealNVP
from .gaussianization import GF, ElementWiseTransform
from .mixture import GMM
from .neural import NAF, UNAF
from .polynomial import BPF, SOSPF
from .spline import NCSF, NSF
