"""netam: Neural networks for antibody affinity maturation."""

from .model_factory import (
    create_selection_model_from_dict,
    create_selection_model_from_yaml,
    create_selection_model_from_file,
    create_model_from_preset,
    list_available_models,
    list_available_presets,
    get_model_info,
    describe_model,
)

__all__ = [
    "create_selection_model_from_dict",
    "create_selection_model_from_yaml",
    "create_selection_model_from_file",
    "create_model_from_preset",
    "list_available_models",
    "list_available_presets",
    "get_model_info",
    "describe_model",
]
