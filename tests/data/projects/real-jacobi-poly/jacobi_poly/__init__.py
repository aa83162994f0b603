__version__ = "1.0.5"
from ._lgamma import binom, lgamma
from ._main import (
    gegenbauer_all,
    jacobi_all,
    jacobi_normalization_constant,
    legendre_all,
    log_jacobi_normalization_constant,
)
from ._triplet import jacobi_triplet_integral

__all__ = [
    "binom",
    "gegenbauer_all",
    "jacobi_all",
    "jacobi_normalization_constant",
    "jacobi_triplet_integral",
    "legendre_all",
    "lgamma",
    "log_jacobi_normalization_constant",
]
