from ._group_lasso import solve_sparse_group_lasso
from ._group_lasso import solve_sparse_group_lasso_cv
from ._sklearn_api import SparseGroupLassoCV

__all__ = [
    "solve_sparse_group_lasso",
    "solve_sparse_group_lasso_cv",
    "SparseGroupLassoCV",
]
