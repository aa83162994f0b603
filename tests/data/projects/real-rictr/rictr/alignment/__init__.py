from .layer_map import LayerMap
from .projection import make_projector, LinearProjector, MLPProjector
from .hooks import FeatureExtractor, get_submodule

__all__ = [
    "LayerMap",
    "make_projector",
    "LinearProjector",
    "MLPProjector",
    "FeatureExtractor",
    "get_submodule",
]

