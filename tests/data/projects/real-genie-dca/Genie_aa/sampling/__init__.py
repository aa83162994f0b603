# Utility functions
from .sampling import (
    gibbs_sampling,
    get_sampler

)

__all__ = [
    "gibbs_sampling",
    "get_sampler",
]
