from apax.utils.jax_md_reduced import (
    dataclasses,
    partition,
    quantity,
    simulate,
    smap,
    space,
    util,
)

__all__ = ["partition", "space", "quantity", "simulate", "smap", "util", "dataclasses"]
