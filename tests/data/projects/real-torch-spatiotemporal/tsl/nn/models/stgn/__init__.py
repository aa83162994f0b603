from .agcrn_model import AGCRNModel
from .dcrnn_model import DCRNNModel
from .evolve_gcn_model import EvolveGCNModel
from .gated_gn_model import GatedGraphNetworkModel
from .graph_wavenet_model import GraphWaveNetModel
from .grin_model import GRINModel
from .gru_gcn_model import GRUGCNModel
from .rnn_gcn_model import RNNEncGCNDecModel
from .spin_model import SPINHierarchicalModel, SPINModel
from .stcn_model import STCNModel

__all__ = [
    'DCRNNModel',
    'GraphWaveNetModel',
    'GatedGraphNetworkModel',
    'RNNEncGCNDecModel',
    'STCNModel',
    'EvolveGCNModel',
    'GRUGCNModel',
    'AGCRNModel',
    'GRINModel',
    'SPINModel',
    'SPINHierarchicalModel',
]

classes = __all__
