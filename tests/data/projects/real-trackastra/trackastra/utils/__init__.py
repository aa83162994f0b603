# ruff: noqa: F401

from .utils import (
    blockwise_causal_norm,
    blockwise_sum,
    none_or_path,
    none_or_str,
    normalize,
    preallocate_memory,
    random_label_cmap,
    render_label,
    seed,
    str2bool,
    str2path,
)
