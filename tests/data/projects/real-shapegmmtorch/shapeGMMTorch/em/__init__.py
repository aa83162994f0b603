from .kronecker import (
    sgmm_kronecker_em,
    sgmm_expectation_kronecker
)
from .uniform import (
    sgmm_uniform_em,
    sgmm_expectation_uniform
)

__all__ = [
    "sgmm_kronecker_em",
    "sgmm_expectation_kronecker",
    "sgmm_uniform_em",
    "sgmm_expectation_uniform"
]

