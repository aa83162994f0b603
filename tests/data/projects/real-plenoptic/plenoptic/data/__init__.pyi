__all__ = [
    "einstein",
    "curie",
    "parrot",
    "reptile_skin",
    "color_wheel",
    "DOWNLOADABLE_FILES",
    "fetch_data",
    "polar_radius",
    "polar_angle",
    "disk",
    "macaque",
]

from ._fetch import DOWNLOADABLE_FILES, fetch_data
from .images import color_wheel, curie, einstein, macaque, parrot, reptile_skin
from .synthetic_images import disk, polar_angle, polar_radius
