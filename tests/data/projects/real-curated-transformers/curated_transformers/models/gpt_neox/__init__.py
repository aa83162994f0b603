from .causal_lm import GPTNeoXCausalLM
from .config import GPTNeoXConfig
from .decoder import GPTNeoXDecoder
