from .figs import (
    fig_to_image,
    get_fig_dict,
    get_image_dict,
    get_image_grid,
    get_image_grid_numpy,
)
from .geometry import box_intersection, box_shape, box_union
from .metadata import (
    add_multiscale_metadata_levels,
    create_multiscale_metadata,
    find_level,
    generate_base_multiscales_metadata,
    write_metadata,
)
from .misc import (
    array_has_singleton_dim,
    get_sliced_shape,
    is_array_2D,
    longest_common_substring,
    min_redundant_inds,
    permute_singleton_dimension,
    split_target_path,
    torch_max_value,
)

__all__ = [
    "fig_to_image",
    "get_fig_dict",
    "get_image_dict",
    "get_image_grid",
    "get_image_grid_numpy",
    "box_intersection",
    "box_shape",
    "box_union",
    "add_multiscale_metadata_levels",
    "create_multiscale_metadata",
    "find_level",
    "generate_base_multiscales_metadata",
    "write_metadata",
    "array_has_singleton_dim",
    "get_sliced_shape",
    "is_array_2D",
    "longest_common_substring",
    "min_redundant_inds",
    "permute_singleton_dimension",
    "split_target_path",
    "torch_max_value",
]
