from . import convert, data, datasets, jax_md_reduced, math, random

__all__ = ["convert", "data", "math", "random", "jax_md_reduced", datasets]
