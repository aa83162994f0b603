__docformat__ = "restructuredtext"

from .layer_utils import (
    get_layers_names_by_model,
    identify_model,
)

__all__ = [
    "get_layers_names_by_model",
    "identify_model",
]
