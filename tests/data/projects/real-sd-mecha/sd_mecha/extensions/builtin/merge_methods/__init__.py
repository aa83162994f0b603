from .limiting import clamp
from .cosine import add_cosine_a, add_cosine_b
from .crossover import crossover
from .ema import exchange_ema
from .linear import (
    weighted_sum,
    n_average,
    slerp,
    subtract,
    perpendicular_component,
    train_difference_mask,
    add_opposite_mask,
    add_strict_opposite_mask,
    geometric_sum,
    multiply_quotient,
)
from .logistics import (
    fallback,
    cast,
    get_dtype,
    get_device,
    pick_component,
    omit_component,
    cast_dtype_map,
    cast_dtype_map_reversed,
    stack,
    omit_non_finite,
)
from .slicing import top_k_tensor_sum
from .svd import truncate_rank, get_rank_from_ratio
from .ties import (
    ties_sum_with_dropout,
    ties_sum,
    ties_sum_extended,
    model_stock,
    geometric_median,
)
from .wrappers import (
    add_difference,
    add_perpendicular,
    add_difference_ties,
    add_difference_ties_extended,
    copy_region,
    tensor_sum,
    rotate,
    dropout,
    add_ties_with_dare,
    n_model_stock,
)
from .rebasin import rebasin, randperm
from .balance_attention import balance_attention
