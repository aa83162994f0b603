from . import multi, recurrent
from .conditional import ConditionalBlock, ConditionalTCNBlock
from .mlp import MLP, ResidualMLP
from .mlp_attention import MLPAttention, TemporalMLPAttention
from .multi import MultiMLP, MultiRNN
from .recurrent import (AGCRN, DCRNN, RNN, DenseDCRNN, EvolveGCN, GraphConvRNN,
                        RNNBase)
from .stcn import SpatioTemporalConvNet
from .tcn import TemporalConvNet
from .transformer import (SpatioTemporalTransformerLayer, Transformer,
                          TransformerLayer)

__all__ = [
    'MLP',
    'ResidualMLP',
    'MultiMLP',
    'ConditionalBlock',
    'TemporalConvNet',
    'SpatioTemporalConvNet',
    'ConditionalTCNBlock',
    # Attention
    'MLPAttention',
    'TemporalMLPAttention',
    'TransformerLayer',
    'SpatioTemporalTransformerLayer',
    'Transformer',
    # RNN
    'RNNBase',
    'RNN',
    'MultiRNN',
    'GraphConvRNN',
    'DCRNN',
    'DenseDCRNN',
    'AGCRN',
    'EvolveGCN'
]

enc_classes = __all__[:10]
rnn_classes = __all__[10:]
classes = __all__
