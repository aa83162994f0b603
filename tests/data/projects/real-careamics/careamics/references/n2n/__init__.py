"""N2N citation and references."""

from .citations import N2N_REF
from .descriptions import N2N, N2N_DESCRIPTION

__all__ = [
    "N2N",
    "N2N_DESCRIPTION",
    "N2N_REF",
]
