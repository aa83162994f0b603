"""Re-export shim: imports from turbo_gnn."""

from turbo_gnn._autotune import TunableKernel, TunableParam, with_autotune
from turbo_gnn._functions import gatv2_function
from turbo_gnn._kernels import GATv2AggrKernel
from turbo_gnn.graph import AdjacencyForwardBackwardWithNodeBuckets
from turbo_gnn.ops import gatv2_aggr
