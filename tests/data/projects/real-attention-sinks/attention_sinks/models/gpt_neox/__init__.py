from .modeling_gpt_neox import (
    GPTNeoXForCausalLM,
    GPTNeoXForQuestionAnswering,
    GPTNeoXForSequenceClassification,
    GPTNeoXForTokenClassification,
    GPTNeoXModel,
    GPTNeoXPreTrainedModel,
)
from .pos_shift import gpt_neox_pos_shift_attention_forward
