from .autoregressive import MaskedAutoregressiveFlow
from .base import Flow
from .realnvp import SimpleRealNVP
