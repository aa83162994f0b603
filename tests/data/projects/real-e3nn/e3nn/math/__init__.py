from ._linalg import complete_basis, direct_sum, orthonormalize
from ._normalize_activation import moment, normalize2mom
from ._soft_unit_step import soft_unit_step
from ._soft_one_hot_linspace import soft_one_hot_linspace
from ._reduce import germinate_formulas, reduce_permutation
from ._bessel import bessel

__all__ = [
    "complete_basis",
    "direct_sum",
    "orthonormalize",
    "moment",
    "normalize2mom",
    "soft_unit_step",
    "bessel",
    "soft_one_hot_linspace",
    "germinate_formulas",
    "reduce_permutation",
]
