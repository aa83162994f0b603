from xturing.engines.llama_utils.llama import (
    LlamaConfig,
    LlamaForCausalLM,
    LlamaTokenizer,
)
