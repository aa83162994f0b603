from .base_layer import BaseLayer
from .gcn_layer import GCNLayer
from .sage_layer import MeanAggregator, SumAggregator, SAGELayer
from .gat_layer import GATLayer
from .gin_layer import GINLayer
from .gine_layer import GINELayer
from .se_layer import SELayer
from .deepergcn_layer import GENConv, ResGNNLayer
from .disengcn_layer import DisenGCNLayer
from .gcnii_layer import GCNIILayer
from .mlp_layer import MLP
from .saint_layer import SAINTLayer
from .han_layer import HANLayer
from .pprgo_layer import PPRGoLayer
from .rgcn_layer import RGCNLayer
from .sgc_layer import SGCLayer
from .mixhop_layer import MixHopLayer
from .reversible_layer import RevGNNLayer
from .set2set import Set2Set
from .stgcn_layer import STConvLayer
from .stgat_layer import STGATConvLayer
from .gcn_layerii import GCNLayerST
from .gat_layerii import GATLayerST


__all__ = [
    "BaseLayer",
    "GCNLayer",
    "MeanAggregator",
    "SumAggregator",
    "SAGELayer",
    "GATLayer",
    "GINLayer",
    "GINELayer",
    "SELayer",
    "GENConv",
    "ResGNNLayer",
    "DisenGCNLayer",
    "GCNIILayer",
    "SAINTLayer",
    "HANLayer",
    "PPRGoLayer",
    "RGCNLayer",
    "SGCLayer",
    "MixHopLayer",
    "MLP",
    "RevGNNLayer",
    "Set2Set",
    "STConvLayer",
    "STGATConvLayer",
    "GCNLayerST",
    "GATLayerST",
]
