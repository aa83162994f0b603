from .attentions import CrossAttentionBlock
from .convolutions import ResBlock
from .other import SFTModulation
from .positional_encoding import RoPE
from .vit_wrapper import PretrainedViTWrapper
from .jafar import JAFAR
