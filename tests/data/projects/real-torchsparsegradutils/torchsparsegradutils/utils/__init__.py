from .bicgstab import BICGSTABSettings, bicgstab
from .dist_stats_helpers import cov_nagao_test, mean_hotelling_t2_test
from .linear_cg import CGInfo, LinearCGSettings, linear_cg
from .lsmr import lsmr
from .minres import MINRESSettings, minres
from .random_sparse import rand_sparse, rand_sparse_tri
from .utils import (
    convert_coo_to_csr,
    convert_coo_to_csr_indices_values,
    sparse_block_diag,
    sparse_block_diag_split,
    sparse_eye,
    stack_csr,
)

__all__ = [
    "linear_cg",
    "LinearCGSettings",
    "CGInfo",
    "minres",
    "MINRESSettings",
    "bicgstab",
    "BICGSTABSettings",
    "lsmr",
    "convert_coo_to_csr_indices_values",
    "convert_coo_to_csr",
    "sparse_block_diag",
    "rand_sparse",
    "rand_sparse_tri",
    "sparse_block_diag_split",
    "stack_csr",
    "sparse_eye",
    "mean_hotelling_t2_test",
    "cov_nagao_test",
]
