from .causal_lm import LlamaCausalLM
from .config import LlamaConfig
from .decoder import LlamaDecoder
