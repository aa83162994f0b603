from .build import ENCODER_REGISTRY, build_encoder
from .conv_encoder import BasicConvEncoder, FlowNetConvEncoder
from .dcvnet import DCVNetBackbone
from .ganet import GANetBackbone
from .pspnet import PSPNetBackbone
from .pyramid import PyramidEncoder
from .raft import RAFTBackbone
from .residual import *
