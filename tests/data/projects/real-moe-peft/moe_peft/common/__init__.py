# Basic Abstract Class
from .abstracts import (
    LLMAttention,
    LLMCache,
    LLMDecoder,
    LLMFeedForward,
    LLMForCausalLM,
    LLMMoeBlock,
    LLMOutput,
)
from .attention import (
    eager_attention_forward,
    flash_attention_forward,
    prepare_4d_causal_attention_mask,
)
from .cache import (
    DynamicCache,
    HybridCache,
    SlidingWindowCache,
    StaticCache,
    cache_factory,
)
from .checkpoint import (
    CHECKPOINT_CLASSES,
    CheckpointNoneFunction,
    CheckpointOffloadFunction,
    CheckpointRecomputeFunction,
)

# Model Configuration
from .config import (
    AdapterConfig,
    InputData,
    Labels,
    LLMBatchConfig,
    LLMModelConfig,
    LLMModelInput,
    LLMModelOutput,
    LoraConfig,
    Masks,
    Prompt,
    Tokens,
)
from .feed_forward import FeedForward

# LoRA
from .lora_linear import Linear, Lora, get_range_tensor

# MoEs
from .moe_utils import collect_plugin_router_logtis, slice_tensor, unpack_router_logits
from .rope import ROPE_INIT_FUNCTIONS

__all__ = [
    "prepare_4d_causal_attention_mask",
    "eager_attention_forward",
    "flash_attention_forward",
    "LLMCache",
    "DynamicCache",
    "HybridCache",
    "SlidingWindowCache",
    "StaticCache",
    "cache_factory",
    "CheckpointNoneFunction",
    "CheckpointOffloadFunction",
    "CheckpointRecomputeFunction",
    "CHECKPOINT_CLASSES",
    "FeedForward",
    "slice_tensor",
    "unpack_router_logits",
    "collect_plugin_router_logtis",
    "get_range_tensor",
    "Lora",
    "Linear",
    "LLMAttention",
    "LLMFeedForward",
    "LLMMoeBlock",
    "LLMDecoder",
    "LLMOutput",
    "LLMForCausalLM",
    "Tokens",
    "Labels",
    "Masks",
    "Prompt",
    "InputData",
    "LLMModelConfig",
    "LLMModelOutput",
    "LLMBatchConfig",
    "LLMModelInput",
    "AdapterConfig",
    "LoraConfig",
    "ROPE_INIT_FUNCTIONS",
]
