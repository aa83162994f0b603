from .convolutional import TDConvNet, TDConvNetpp, SuDORMRF, SuDORMRFImproved
from .recurrent import DPRNN, LSTMMasker
from .attention import DPTransformer

__all__ = [
    "TDConvNet",
    "DPRNN",
    "DPTransformer",
    "LSTMMasker",
    "SuDORMRF",
    "SuDORMRFImproved",
]
