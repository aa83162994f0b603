from .bitnet import BitLinear, BitLinear158b
from .replace_linears import replace_linears_in_hf
from .models.bit_llama import (
    BitLlamaConfig,
    BitLlamaForCausalLM,
)

__version__ = '0.1.0'
__all__ = [
    'BitLinear', 
    'BitLinear158b', 
    'replace_linears_in_hf',
    'BitLlamaConfig',
    'BitLlamaForCausalLM'
]