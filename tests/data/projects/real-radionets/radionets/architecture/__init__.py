from .activation import GeneralELU, GeneralReLU, Lambda
from .archs import (
    SRResNet,
    SRResNet18,
    SRResNet34,
    SRResNet34_unc,
    SRResNet34_unc_no_grad,
)
from .blocks import BottleneckResBlock, Decoder, Encoder, NNBlock, SRBlock
from .layers import LocallyConnected2d
from .unc_archs import Uncertainty, UncertaintyWrapper

__all__ = [
    "BottleneckResBlock",
    "Decoder",
    "Encoder",
    "GeneralELU",
    "GeneralReLU",
    "Lambda",
    "LocallyConnected2d",
    "NNBlock",
    "SRBlock",
    "SRResNet",
    "SRResNet18",
    "SRResNet34",
    "SRResNet34_unc",
    "SRResNet34_unc_no_grad",
    "Uncertainty",
    "UncertaintyWrapper",
]
