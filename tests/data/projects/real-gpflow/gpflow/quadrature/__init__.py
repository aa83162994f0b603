from .base import GaussianQuadrature
from .deprecated import hermgauss, mvhermgauss, mvnquad, ndiag_mc, ndiagquad
from .gauss_hermite import NDiagGHQuadrature

__all__ = [
    "GaussianQuadrature",
    "NDiagGHQuadrature",
    "base",
    "deprecated",
    "gauss_hermite",
    "hermgauss",
    "mvhermgauss",
    "mvnquad",
    "ndiag_mc",
    "ndiagquad",
]
