from .modeling_mistral import (
    MistralForCausalLM,
    MistralForSequenceClassification,
    MistralModel,
)
from .pos_shift import mistral_pos_shift_attention_forward
