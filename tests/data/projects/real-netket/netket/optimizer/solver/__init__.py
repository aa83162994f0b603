from .solvers import cholesky as cholesky
from .solvers import cholesky_distributed as cholesky_distributed
from .solvers import cholesky_with_fallback as cholesky_with_fallback
from .solvers import LU as LU
from .solvers import nan_fallback as nan_fallback
from .solvers import pinv as pinv
from .solvers import pinv_smooth as pinv_smooth
from .solvers import pinv_smooth_distributed as pinv_smooth_distributed
from .solvers import solve as solve
from .solvers import svd as svd

from netket.utils import _hide_submodules

_hide_submodules(__name__)
