from .bitnet import *
# from transformers import AutoConfig, AutoModelForCausalLM

# AutoClassの拡張
# refers: https://huggingface.co/docs/transformers/ja/model_doc/auto
# AutoConfig.register("bit_llama", BitLlamaConfig)
# AutoModelForCausalLM.register(BitLlamaConfig, BitLlamaForCausalLM)