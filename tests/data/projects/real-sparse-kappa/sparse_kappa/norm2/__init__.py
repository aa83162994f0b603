"""
2-norm condition number estimation methods.
"""

from .power_method import power_method_cond
from .lanczos import lanczos_cond
from .lanczos_unsym import lanczos_unsym_cond
from .golub_kahan import golub_kahan_cond
from .torch_wrappers import eigsh_cond, lobpcg_cond
from .svds import svds_cond

# from .torch_wrappers import svds_cond #(deprecated)

__all__ = [
    'power_method_cond',
    'lanczos_cond',
    'lanczos_unsym_cond',
    'golub_kahan_cond',
    'svds_cond',
    'eigsh_cond',
    'lobpcg_cond',
]