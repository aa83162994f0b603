from ._colors import (
    blue_rgb,
    gray_rgb,
    light_blue_rgb,
    light_red_rgb,
    red_blue,
    red_blue_circle,
    red_blue_no_bounds,
    red_blue_transparent,
    red_rgb,
    red_transparent_blue,
    red_white_blue,
    transparent_blue,
    transparent_red,
)

__all__ = [
    # Colors
    "blue_rgb",
    "gray_rgb",
    "light_blue_rgb",
    "light_red_rgb",
    "red_rgb",
    # Colormaps
    "red_blue",
    "red_blue_circle",
    "red_blue_no_bounds",
    "red_blue_transparent",
    "red_transparent_blue",
    "red_white_blue",
    "transparent_blue",
    "transparent_red",
]
