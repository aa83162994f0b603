from ._dual_cone import DualConeProjector, QuadprogProjector, projector_or_default
from ._generalized_gramian import flatten, movedim, reshape
from ._gramian import compute_gramian, normalize, regularize
from ._matrix import Matrix, PSDMatrix, PSDTensor, is_matrix, is_psd_matrix, is_psd_tensor

__all__ = [
    "compute_gramian",
    "normalize",
    "regularize",
    "Matrix",
    "PSDMatrix",
    "PSDTensor",
    "is_matrix",
    "is_psd_matrix",
    "is_psd_tensor",
    "flatten",
    "reshape",
    "movedim",
    "DualConeProjector",
    "QuadprogProjector",
    "projector_or_default",
]
