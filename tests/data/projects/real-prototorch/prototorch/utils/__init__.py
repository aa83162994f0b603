"""ProtoTorch utils module"""

from .colors import (
    get_colors,
    get_legend_handles,
    hex_to_rgb,
    rgb_to_hex,
)
from .utils import (
    mesh2d,
    parse_data_arg,
    parse_distribution,
)
