from .albert import ALBERTConfig, ALBERTEncoder
from .auto_model import AutoCausalLM, AutoDecoder, AutoEncoder
from .bert import BERTConfig, BERTEncoder
from .camembert import CamemBERTEncoder
from .config import (
    RotaryEmbeddingConfig,
    TransformerAttentionLayerConfig,
    TransformerConfig,
    TransformerEmbeddingLayerConfig,
    TransformerFeedForwardLayerConfig,
    TransformerLayerConfig,
)
from .falcon import FalconCausalLM, FalconConfig, FalconDecoder
from .gpt_neox import GPTNeoXCausalLM, GPTNeoXConfig, GPTNeoXDecoder
from .hf_hub import FromHF
from .llama import LlamaCausalLM, LlamaConfig, LlamaDecoder
from .module import CausalLMModule, DecoderModule, EncoderModule
from .mpt import MPTCausalLM, MPTConfig, MPTDecoder
from .output import CausalLMOutputWithCache, ModelOutput, ModelOutputWithCache
from .roberta import RoBERTaConfig, RoBERTaEncoder
from .transformer import TransformerCausalLM, TransformerDecoder, TransformerEncoder
from .xlm_roberta import XLMREncoder

__all__ = [
    "ALBERTConfig",
    "ALBERTEncoder",
    "AutoCausalLM",
    "AutoDecoder",
    "AutoEncoder",
    "BERTConfig",
    "BERTEncoder",
    "CamemBERTEncoder",
    "CausalLMModule",
    "CausalLMOutputWithCache",
    "DecoderModule",
    "EncoderModule",
    "FalconCausalLM",
    "FalconConfig",
    "FalconDecoder",
    "FromHF",
    "GPTNeoXCausalLM",
    "GPTNeoXConfig",
    "GPTNeoXDecoder",
    "LlamaCausalLM",
    "LlamaConfig",
    "LlamaDecoder",
    "MPTCausalLM",
    "MPTConfig",
    "MPTDecoder",
    "ModelOutput",
    "ModelOutputWithCache",
    "RoBERTaConfig",
    "RoBERTaEncoder",
    "RotaryEmbeddingConfig",
    "TransformerAttentionLayerConfig",
    "TransformerConfig",
    "TransformerCausalLM",
    "TransformerDecoder",
    "TransformerEmbeddingLayerConfig",
    "TransformerEncoder",
    "TransformerFeedForwardLayerConfig",
    "TransformerLayerConfig",
    "XLMREncoder",
]
