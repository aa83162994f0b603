from .agcrn import AGCRN
from .base import RNNBase, RNNIBase
from .dcrnn import DCRNN
from .dense_dcrnn import DenseDCRNN
from .evolvegcn import EvolveGCN
from .gcrnn import GraphConvRNN
from .rnn import RNN, RNNI

__all__ = [
    'RNNBase',
    'RNNIBase',
    'RNN',
    'RNNI',
    'GraphConvRNN',
    'DCRNN',
    'DenseDCRNN',
    'AGCRN',
    'EvolveGCN',
]

classes = __all__
