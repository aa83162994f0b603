from .adaptive_graph_conv import AdaptiveGraphConv
from .dense_graph_conv import DenseGraphConv, DenseGraphConvOrderK
from .diff_conv import DiffConv, DiffusionConv
from .gat_conv import GATConv
from .gated_gn import GatedGraphNetwork
from .gpvar import GraphPolyVAR
from .graph_attention import AttentionScores, MultiHeadGraphAttention
from .graph_conv import GraphConv
from .spatiotemporal_attention import SpatioTemporalAttention
from .spatiotemporal_cross_attention import (
    HierarchicalSpatiotemporalCrossAttention, SpatiotemporalCrossAttention)

__all__ = [
    'GraphConv', 'DenseGraphConv', 'DenseGraphConvOrderK', 'DiffConv',
    'DiffusionConv', 'GraphPolyVAR', 'MultiHeadGraphAttention', 'GATConv',
    'GatedGraphNetwork', 'AdaptiveGraphConv', 'SpatiotemporalCrossAttention',
    'HierarchicalSpatiotemporalCrossAttention'
]

classes = __all__
