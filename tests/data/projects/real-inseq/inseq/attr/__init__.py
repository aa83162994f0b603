from .feat import FeatureAttribution, extract_args, list_feature_attribution_methods
from .step_functions import (
    STEP_SCORES_MAP,
    StepFunctionArgs,
    list_step_functions,
    register_step_function,
)

__all__ = [
    "FeatureAttribution",
    "list_feature_attribution_methods",
    "list_step_functions",
    "register_step_function",
    "STEP_SCORES_MAP",
    "extract_args",
    "StepFunctionArgs",
]
