"""Re-export shim: imports from turbo_gnn."""

from turbo_gnn._functions import _CudaSpMMConvFn, csr_SPMM_normalized
from turbo_gnn.ops import spmm_aggr
