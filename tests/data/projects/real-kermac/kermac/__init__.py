from .cdist import *
from .cdist_grad import *
from .build_a_kernel import *
from .module_cache.module_cache import *

all = [
    "cdist",
    "cdist_grad",
    "KernelDescriptor",
    "run_kernel",
    "PowerType",
    "InnerOperator",
    "KernelType",
    "Symmetry",
    "kernel_descriptor_laplace_l1",
    "kernel_descriptor_laplace_l2",
    "kernel_descriptor_p_norm",
    "kernel_descriptor_l1_norm",
    "kernel_descriptor_l2_norm",
    "kernel_descriptor_mma"
]
