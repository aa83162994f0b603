__all__ = [
    "DE_differential_sum",
    "DE_exponential_crossover",
    "DE_binary_crossover",
    "DE_arithmetic_recombination",
    "simulated_binary",
    "simulated_binary_half",
]

from .differential_evolution import (
    DE_arithmetic_recombination,
    DE_binary_crossover,
    DE_differential_sum,
    DE_exponential_crossover,
)
from .sbx import simulated_binary
from .sbx_half import simulated_binary_half
