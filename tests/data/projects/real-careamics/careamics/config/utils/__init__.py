"""Configuration utilities."""

__all__ = [
    "generate_random_seed",
]

from .random import generate_random_seed
