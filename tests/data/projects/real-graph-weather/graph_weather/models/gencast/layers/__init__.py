"""GenCast layers."""

from .decoder import Decoder
from .encoder import Encoder
from .modules import MLP, InteractionNetwork
