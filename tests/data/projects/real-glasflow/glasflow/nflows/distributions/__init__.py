from .base import Distribution, NoMeanException
from .discrete import ConditionalIndependentBernoulli
from .mixture import MADEMoG
from .normal import (
    ConditionalDiagonalNormal,
    DiagonalNormal,
    StandardNormal,
)
from .uniform import LotkaVolterraOscillating, MG1Uniform
