from .modeling_llama import LlamaForCausalLM, LlamaForSequenceClassification, LlamaModel
from .pos_shift import llama_pos_shift_attention_forward
