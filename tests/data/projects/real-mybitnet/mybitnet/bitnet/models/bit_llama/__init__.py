from .modeling_bit_llama import (
    BitLlamaConfig,
    BitLlamaForCausalLM,
)