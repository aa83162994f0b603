from .sersic import brightness_sersic, k_lenstronomy, k_sersic
from .star_source import brightness_star

__all__ = ("brightness_sersic", "k_lenstronomy", "k_sersic", "brightness_star")
