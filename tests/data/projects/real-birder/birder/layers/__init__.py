from birder.layers.activations import QuickGELU
from birder.layers.attention_pool import EfficientProbing
from birder.layers.attention_pool import MultiHeadAttentionPool
from birder.layers.ffn import FFN
from birder.layers.ffn import SwiGLU_FFN
from birder.layers.gem import FixedGeMPool2d
from birder.layers.gem import GeMPool2d
from birder.layers.layer_norm import LayerNorm2d
from birder.layers.layer_scale import LayerScale
from birder.layers.layer_scale import LayerScale2d
from birder.layers.moe import BaseSparseMoE_FFN
from birder.layers.moe import ExpertChoiceRouter
from birder.layers.moe import GroupedLinear
from birder.layers.moe import GroupedSwiGLU_FFN
from birder.layers.moe import MoE_FFN
from birder.layers.moe import MoESpec
from birder.layers.moe import MoETrainingOutputType
from birder.layers.moe import NoisyTopKRouter
from birder.layers.moe import SigmoidTopKRouter
from birder.layers.moe import SoftMoE_FFN
from birder.layers.moe import VMoE_FFN
from birder.layers.moe import group_experts
from birder.layers.moe import ungroup_experts

__all__ = [
    "QuickGELU",
    "EfficientProbing",
    "MultiHeadAttentionPool",
    "FFN",
    "SwiGLU_FFN",
    "FixedGeMPool2d",
    "GeMPool2d",
    "LayerNorm2d",
    "LayerScale",
    "LayerScale2d",
    "BaseSparseMoE_FFN",
    "ExpertChoiceRouter",
    "GroupedLinear",
    "GroupedSwiGLU_FFN",
    "MoE_FFN",
    "MoESpec",
    "MoETrainingOutputType",
    "NoisyTopKRouter",
    "SigmoidTopKRouter",
    "SoftMoE_FFN",
    "VMoE_FFN",
    "group_experts",
    "ungroup_experts",
]
