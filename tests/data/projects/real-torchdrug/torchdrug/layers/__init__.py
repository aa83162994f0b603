from .common import MultiLayerPerceptron, GaussianSmearing, MutualInformation, PairNorm, InstanceNorm, Sequential, \
    SinusoidalPositionEmbedding

from .block import ProteinResNetBlock, SelfAttentionBlock, ProteinBERTBlock
from .conv import MessagePassingBase, GraphConv, GraphAttentionConv, RelationalGraphConv, GraphIsomorphismConv, \
    NeuralFingerprintConv, ContinuousFilterConv, MessagePassing, ChebyshevConv, GeometricRelationalGraphConv
from .pool import DiffPool, MinCutPool
from .readout import MeanReadout, SumReadout, MaxReadout, AttentionReadout, Softmax, Set2Set, Sort
from .flow import ConditionalFlow
from .sampler import NodeSampler, EdgeSampler
from .geometry import GraphConstruction, SpatialLineGraph
from . import distribution, functional

# alias
MLP = MultiLayerPerceptron
RBF = GaussianSmearing
GCNConv = GraphConv
RGCNConv = RelationalGraphConv
GINConv = GraphIsomorphismConv
NFPConv = NeuralFingerprintConv
CFConv = ContinuousFilterConv
MPConv = MessagePassing

__all__ = [
    "MultiLayerPerceptron", "GaussianSmearing", "MutualInformation", "PairNorm", "InstanceNorm", "Sequential",
    "SinusoidalPositionEmbedding",
    "MessagePassingBase", "GraphConv", "GraphAttentionConv", "RelationalGraphConv", "GraphIsomorphismConv",
    "NeuralFingerprintConv", "ContinuousFilterConv", "MessagePassing", "ChebyshevConv", "GeometricRelationalGraphConv",
    "DiffPool", "MinCutPool",
    "MeanReadout", "SumReadout", "MaxReadout", "AttentionReadout", "Softmax", "Set2Set", "Sort",
    "ConditionalFlow",
    "NodeSampler", "EdgeSampler",
    "GraphConstruction", "SpatialLineGraph",
    "distribution", "functional",
    "MLP", "RBF", "GCNConv", "RGCNConv", "GINConv", "NFPConv", "CFConv", "MPConv",
    "ProteinResNetBlock", "SelfAttentionBlock", "ProteinBERTBlock",
]