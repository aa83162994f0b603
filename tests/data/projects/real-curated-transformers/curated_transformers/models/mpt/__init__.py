from .causal_lm import MPTCausalLM
from .config import MPTConfig
from .decoder import MPTDecoder
