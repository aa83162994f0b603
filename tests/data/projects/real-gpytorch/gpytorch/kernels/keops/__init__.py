from .keops_kernel import KeOpsKernel
from .matern_kernel import MaternKernel
from .periodic_kernel import PeriodicKernel
from .rbf_kernel import RBFKernel

__all__ = ["KeOpsKernel", "MaternKernel", "PeriodicKernel", "RBFKernel"]
