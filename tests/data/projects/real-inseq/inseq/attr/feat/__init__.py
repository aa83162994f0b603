from .attribution_utils import extract_args, join_token_ids
from .feature_attribution import FeatureAttribution, list_feature_attribution_methods
from .gradient_attribution import (
    DeepLiftAttribution,
    DiscretizedIntegratedGradientsAttribution,
    GradientAttributionRegistry,
    GradientShapAttribution,
    InputXGradientAttribution,
    IntegratedGradientsAttribution,
    LayerDeepLiftAttribution,
    LayerGradientXActivationAttribution,
    LayerIntegratedGradientsAttribution,
    SaliencyAttribution,
    SequentialIntegratedGradientsAttribution,
)
from .internals_attribution import AttentionWeightsAttribution, InternalsAttributionRegistry
from .perturbation_attribution import (
    LimeAttribution,
    OcclusionAttribution,
    PerturbationAttributionRegistry,
    ReagentAttribution,
    ValueZeroingAttribution,
)

__all__ = [
    "FeatureAttribution",
    "extract_args",
    "list_feature_attribution_methods",
    "join_token_ids",
    "GradientAttributionRegistry",
    "GradientShapAttribution",
    "DeepLiftAttribution",
    "InputXGradientAttribution",
    "IntegratedGradientsAttribution",
    "DiscretizedIntegratedGradientsAttribution",
    "SaliencyAttribution",
    "LayerIntegratedGradientsAttribution",
    "LayerGradientXActivationAttribution",
    "LayerDeepLiftAttribution",
    "InternalsAttributionRegistry",
    "AttentionWeightsAttribution",
    "OcclusionAttribution",
    "LimeAttribution",
    "SequentialIntegratedGradientsAttribution",
    "ValueZeroingAttribution",
    "PerturbationAttributionRegistry",
    "ReagentAttribution",
]
