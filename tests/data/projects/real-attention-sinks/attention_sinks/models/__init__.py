from .auto import (
    AutoModel,
    AutoModelForCausalLM,
    AutoModelForQuestionAnswering,
    AutoModelForSequenceClassification,
    AutoModelForTokenClassification,
)
from .falcon import (
    FalconForCausalLM,
    FalconForQuestionAnswering,
    FalconForSequenceClassification,
    FalconForTokenClassification,
    FalconModel,
    FalconPreTrainedModel,
    falcon_pos_shift_attention_forward,
)
from .gpt_neox import (
    GPTNeoXForCausalLM,
    GPTNeoXForQuestionAnswering,
    GPTNeoXForSequenceClassification,
    GPTNeoXForTokenClassification,
    GPTNeoXModel,
    GPTNeoXPreTrainedModel,
    gpt_neox_pos_shift_attention_forward,
)
from .gptj import (
    GPTJForCausalLM,
    GPTJForQuestionAnswering,
    GPTJForSequenceClassification,
    GPTJModel,
    GPTJPreTrainedModel,
    gptj_pos_shift_attention_forward,
)
from .llama import LlamaForCausalLM, LlamaForSequenceClassification, LlamaModel, llama_pos_shift_attention_forward
from .mistral import (
    MistralForCausalLM,
    MistralForSequenceClassification,
    MistralModel,
    mistral_pos_shift_attention_forward,
)
from .mpt import (
    MptForCausalLM,
    MptForQuestionAnswering,
    MptForSequenceClassification,
    MptForTokenClassification,
    MptModel,
    MptPreTrainedModel,
)
from .qwen import qwen_pos_shift_attention_forward
from .stablelm_epoch import stablelm_epoch_pos_shift_attention_forward
from .yi import yi_pos_shift_attention_forward