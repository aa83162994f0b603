from birder.introspection.attention_rollout import AttentionRollout
from birder.introspection.base import InterpretabilityResult
from birder.introspection.feature_pca import FeaturePCA
from birder.introspection.gradcam import GradCAM
from birder.introspection.guided_backprop import GuidedBackprop
from birder.introspection.moe_routing import MoERouting
from birder.introspection.moe_routing import MoERoutingResult
from birder.introspection.transformer_attribution import TransformerAttribution

__all__ = [
    "InterpretabilityResult",
    "AttentionRollout",
    "FeaturePCA",
    "GradCAM",
    "GuidedBackprop",
    "MoERouting",
    "MoERoutingResult",
    "TransformerAttribution",
]
