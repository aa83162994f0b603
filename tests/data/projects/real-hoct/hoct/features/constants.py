EDGE_GT_KEY = "edge_is_gt"
REGIONPROPS = [
    "equivalent_diameter_area",
    "intensity_min",
    "intensity_max",
    "intensity_mean",
    "intensity_std",
    "inertia_tensor",
    "border_dist",
]
