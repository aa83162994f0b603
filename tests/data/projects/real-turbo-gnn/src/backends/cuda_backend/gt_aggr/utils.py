"""Re-export shim: imports from turbo_gnn."""

from turbo_gnn._autotune import TunableKernel, TunableParam, with_autotune
from turbo_gnn._functions import _FusedGraphAttention
from turbo_gnn._kernels import GraphTransformerAggrKernel
from turbo_gnn.graph import AdjacencyForwardBackwardWithNodeBuckets
from turbo_gnn.ops import graph_transformer_aggr
