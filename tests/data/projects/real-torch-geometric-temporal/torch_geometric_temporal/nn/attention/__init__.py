from .stgcn import STConv, TemporalConv
from .astgcn import ASTGCN, ChebConvAttention
from .mstgcn import MSTGCN
from .gman import GMAN, SpatioTemporalEmbedding, SpatioTemporalAttention
from .mtgnn import MTGNN, MixProp, GraphConstructor
from .tsagcn import GraphAAGCN, AAGCN
from .dnntsp import DNNTSP
