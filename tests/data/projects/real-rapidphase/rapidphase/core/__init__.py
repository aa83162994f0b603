"""Core unwrapping algorithms."""

from rapidphase.core.base import BaseUnwrapper
from rapidphase.core.dct_solver import DCTUnwrapper
from rapidphase.core.irls_solver import IRLSUnwrapper
from rapidphase.core.irls_cg_solver import IRLSCGUnwrapper

__all__ = [
    "BaseUnwrapper",
    "DCTUnwrapper",
    "IRLSUnwrapper",
    "IRLSCGUnwrapper",
]
