from .cellpose import gen_flow_maps
from .contour import gen_contour_maps
from .dist import gen_dist_maps
from .edge_weights import gen_weight_maps
from .hovernet import gen_hv_maps
from .omnipose import gen_omni_flow_maps, smooth_distance
from .stardist import gen_stardist_maps

__all__ = [
    "gen_stardist_maps",
    "gen_flow_maps",
    "gen_hv_maps",
    "gen_omni_flow_maps",
    "smooth_distance",
    "gen_dist_maps",
    "gen_contour_maps",
    "gen_weight_maps",
]
