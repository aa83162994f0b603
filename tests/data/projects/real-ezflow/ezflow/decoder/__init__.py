from .build import DECODER_REGISTRY, build_decoder
from .context import ContextNetwork
from .conv_decoder import ConvDecoder, FlowNetConvDecoder
from .dilated_flow_stack_filter import (
    DCVDilatedFlowStackFilterDecoder,
    DCVFilterGroupConvStemJoint,
)
from .iterative import *
from .noniterative import *
from .pyramid import PyramidDecoder
from .separable_conv import Butterfly4D, SeparableConv4D
