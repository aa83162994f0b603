from .from_dgl import (
    build_i2i_homo_graph,
    build_subgraphs,
    build_u2i_hetero_graph,
    check_dgl,
    compute_i2i_edge_scores,
    compute_u2i_edge_scores,
    pairs_from_dgl_graph,
)
from .neighbor_walk import NeighborWalker, NeighborWalkerDGL

__all__ = [
    "build_i2i_homo_graph",
    "build_subgraphs",
    "build_u2i_hetero_graph",
    "check_dgl",
    "compute_i2i_edge_scores",
    "compute_u2i_edge_scores",
    "pairs_from_dgl_graph",
    "NeighborWalker",
    "NeighborWalkerDGL",
]
