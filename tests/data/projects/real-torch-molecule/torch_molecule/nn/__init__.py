from .gnn import GNN_node, GNN_node_Virtualnode, GCNConv, GINConv
from .mlp import MLP
from .attention import AttentionWithNodeMask
from .embedder import TimestepEmbedder, CategoricalEmbedder, ClusterContinuousEmbedder

__all__ = [
    "MLP",
    "GCNConv",
    "GINConv",
    "GNN_node",
    "GNN_node_Virtualnode",
    "AttentionWithNodeMask",
    "TimestepEmbedder",
    "CategoricalEmbedder",
    "ClusterContinuousEmbedder",
]
