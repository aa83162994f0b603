from . import function

parallel_for_sparse_jacobian = function.parallel_for_sparse_jacobian
psjac = function.psjac

__all__ = ["parallel_for_sparse_jacobian", "psjac", "function"]
