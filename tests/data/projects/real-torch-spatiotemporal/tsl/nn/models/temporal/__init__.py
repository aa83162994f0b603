from .linear_models import ARModel, VARModel
from .rnn_imputers_models import BiRNNImputerModel, RNNImputerModel
from .rnn_model import FCRNNModel, RNNModel
from .stid_model import STIDModel
from .tcn_model import TCNModel
from .transformer_model import TransformerModel

__all__ = [
    'ARModel',
    'VARModel',
    'RNNModel',
    'FCRNNModel',
    'TCNModel',
    'TransformerModel',
    'RNNImputerModel',
    'BiRNNImputerModel',
    'STIDModel',
]

classes = __all__
