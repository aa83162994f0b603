from .agcrn import AGCRNCell
from .base import (GraphGRUCellBase, GraphLSTMCellBase, GRUCell, GRUCellBase,
                   LSTMCell, LSTMCellBase, RNNCellBase, StateType)
from .dcrnn import DCRNNCell
from .dense_dcrnn import DenseDCRNNCell
from .evolvegcn import EvolveGCNHCell, EvolveGCNOCell
from .gcrnn import GraphConvGRUCell, GraphConvLSTMCell
from .grin import GRINCell

__all__ = [
    'RNNCellBase',
    'GRUCellBase',
    'LSTMCellBase',
    'GraphGRUCellBase',
    'GraphLSTMCellBase',
    'GRUCell',
    'LSTMCell',
    'GraphConvGRUCell',
    'GraphConvLSTMCell',
    'DCRNNCell',
    'DenseDCRNNCell',
    'AGCRNCell',
    'EvolveGCNOCell',
    'EvolveGCNHCell',
    'GRINCell',
]

base_classes = __all__[:5]
classes = __all__[5:]
