from pymatting.util.timer import Timer
from pymatting.util.kdtree import KDTree, knn
from pymatting.util.boxfilter import boxfilter
from pymatting.util.distance import distance_transform
from pymatting.util.util import (
    apply_to_channels,
    blend,
    div_round_up,
    fix_trimap,
    grid_coordinates,
    isiterable,
    load_image,
    make_grid,
    mat_vec_dot,
    normalize_rows,
    normalize,
    row_sum,
    sanity_check_image,
    save_image,
    show_images,
    sparse_conv_matrix,
    sparse_conv_matrix_with_offsets,
    stack_images,
    to_rgb8,
    trimap_split,
    vec_vec_dot,
    vec_vec_outer,
    weights_to_laplacian,
    remove_background_bicolor,
)
