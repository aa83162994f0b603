#!/usr/bin/env python3
from __future__ import annotations

from linear_operator.utils import (
    broadcasting,
    cholesky,
    errors,
    getitem,
    interpolation,
    lanczos,
    permutation,
    sparse,
    warnings,
)
from linear_operator.utils.contour_integral_quad import contour_integral_quad
from linear_operator.utils.linear_cg import linear_cg
from linear_operator.utils.memoize import cached
from linear_operator.utils.minres import minres
from linear_operator.utils.pinverse import stable_pinverse
from linear_operator.utils.qr import stable_qr
from linear_operator.utils.stochastic_lq import StochasticLQ

__all__ = [
    "broadcasting",
    "cached",
    "cholesky",
    "contour_integral_quad",
    "errors",
    "getitem",
    "interpolation",
    "lanczos",
    "linear_cg",
    "minres",
    "permutation",
    "pinverse",
    "sparse",
    "stable_pinverse",
    "stable_qr",
    "warnings",
    "StochasticLQ",
]
