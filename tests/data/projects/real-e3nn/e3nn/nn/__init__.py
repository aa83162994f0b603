from ._extract import Extract, ExtractIr
from ._activation import Activation
from ._batchnorm import BatchNorm
from ._fc import FullyConnectedNet
from ._gate import Gate
from ._identity import Identity
from ._s2act import S2Activation
from ._so3act import SO3Activation
from ._normact import NormActivation
from ._dropout import Dropout


__all__ = [
    "Extract",
    "ExtractIr",
    "BatchNorm",
    "FullyConnectedNet",
    "Activation",
    "Gate",
    "Identity",
    "S2Activation",
    "SO3Activation",
    "NormActivation",
    "Dropout",
]
