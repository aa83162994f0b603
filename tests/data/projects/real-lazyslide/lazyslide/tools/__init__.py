from ._domain import spatial_domain, tile_shaper
from ._feature_prediction import feature_prediction
from ._features import feature_aggregation, feature_extraction
from ._image_generation import image_generation
from ._signatures import RNALinker
from ._spatial_features import spatial_features
from ._text_annotate import text_embedding, text_image_similarity
from ._tile_prediction import tile_prediction
from ._tissue_props import tissue_props
from ._virtual_staining import virtual_stain
from ._zero_shot import slide_caption, zero_shot_score

__all__ = [
    "RNALinker",
    "feature_aggregation",
    "feature_extraction",
    "feature_prediction",
    "image_generation",
    "slide_caption",
    "spatial_domain",
    "spatial_features",
    "text_embedding",
    "text_image_similarity",
    "tile_prediction",
    "tile_shaper",
    "tissue_props",
    "virtual_stain",
    "zero_shot_score",
]
