"""Feature extraction and candidate-graph construction for HOCT."""

from hoct.features import constants, features, graph
from hoct.features.constants import EDGE_GT_KEY, REGIONPROPS
from hoct.features.features import (
    add_border_dist,
    add_delta_t,
    add_is_div,
    border_dist_2d,
    border_dist_3d,
    normalize_image,
)
from hoct.features.graph import (
    add_features,
    convert_to_2d,
    convert_to_3d,
    create_graph,
)

__all__ = [
    "EDGE_GT_KEY",
    "REGIONPROPS",
    "add_border_dist",
    "add_delta_t",
    "add_features",
    "add_is_div",
    "border_dist_2d",
    "border_dist_3d",
    "constants",
    "convert_to_2d",
    "convert_to_3d",
    "create_graph",
    "features",
    "graph",
    "normalize_image",
]
