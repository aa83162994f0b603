from .functional.cellpose import gen_flow_maps
from .functional.contour import gen_contour_maps
from .functional.dist import gen_dist_maps
from .functional.edge_weights import gen_weight_maps
from .functional.hovernet import gen_hv_maps
from .functional.normalization import (
    float2ubyte,
    minmax_normalize,
    normalize,
    percentile_normalize,
    percentile_normalize99,
)
from .functional.omnipose import gen_omni_flow_maps
from .functional.stardist import gen_stardist_maps

__all__ = [
    "gen_flow_maps",
    "gen_stardist_maps",
    "gen_hv_maps",
    "gen_omni_flow_maps",
    "gen_dist_maps",
    "gen_contour_maps",
    "gen_weight_maps",
    "normalize",
    "minmax_normalize",
    "percentile_normalize",
    "percentile_normalize99",
    "float2ubyte",
]
