from .sparse_mfac import SparseMFAC
from .sparse_core_mfac_w_ef import SparseCoreMFACwithEF

__all__ = [
    'SparseMFAC',
    'SparseCoreMFACwithEF'
]
