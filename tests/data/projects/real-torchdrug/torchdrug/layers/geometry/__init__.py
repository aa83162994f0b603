from .graph import GraphConstruction, SpatialLineGraph
from .function import BondEdge, KNNEdge, SpatialEdge, SequentialEdge, AlphaCarbonNode, \
    IdentityNode, RandomEdgeMask, SubsequenceNode, SubspaceNode

__all__ = [
    "GraphConstruction", "SpatialLineGraph",
    "BondEdge", "KNNEdge", "SpatialEdge", "SequentialEdge", "AlphaCarbonNode",
    "IdentityNode", "RandomEdgeMask", "SubsequenceNode", "SubspaceNode"
]