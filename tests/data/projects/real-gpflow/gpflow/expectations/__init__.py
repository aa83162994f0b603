from . import (
    cross_kernels,
    linears,
    mean_functions,
    misc,
    products,
    quadratures,
    squared_exponentials,
    sums,
)
from .expectations import expectation, quadrature_expectation

__all__ = [
    "cross_kernels",
    "dispatch",
    "expectation",
    "expectations",
    "linears",
    "mean_functions",
    "misc",
    "products",
    "quadrature_expectation",
    "quadratures",
    "squared_exponentials",
    "sums",
]
