from .causal_lm import FalconCausalLM
from .config import FalconConfig
from .decoder import FalconDecoder
from .layer import OldFalconDecoderLayer
