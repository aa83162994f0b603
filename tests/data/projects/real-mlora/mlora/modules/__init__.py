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
    LoraMoeConfig,
    Masks,
    MixLoraConfig,
    MolaConfig,
    Prompt,
    Tokens,
    lora_config_factory,
)
from .feed_forward import FeedForward

# LoRA
from .lora_linear import Linear, Lora, get_range_tensor

# MixLoRA MoEs
from .lora_moes import (
    DynamicRouterLoss,
    DynamicSparseMoe,
    LoraMoe,
    MixtralRouterLoss,
    MixtralSparseMoe,
    MolaSparseMoe,
    SwitchRouterLoss,
    SwitchSparseMoe,
    moe_layer_dict,
    moe_layer_factory,
    router_loss_dict,
    router_loss_factory,
)
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
    "get_range_tensor",
    "Lora",
    "Linear",
    "MixtralRouterLoss",
    "MixtralSparseMoe",
    "DynamicRouterLoss",
    "DynamicSparseMoe",
    "SwitchRouterLoss",
    "SwitchSparseMoe",
    "LoraMoe",
    "MolaSparseMoe",
    "router_loss_dict",
    "moe_layer_dict",
    "router_loss_factory",
    "moe_layer_factory",
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
    "MixLoraConfig",
    "LoraMoeConfig",
    "MolaConfig",
    "lora_config_factory",
    "ROPE_INIT_FUNCTIONS",
]
