from . import augment
from .augment import (
    Binarize,
    GaussianBlur,
    GaussianNoise,
    NaNtoNum,
    RandomContrast,
    RandomGamma,
)

__all__ = [
    "augment",
    "GaussianNoise",
    "RandomContrast",
    "RandomGamma",
    "NaNtoNum",
    "Binarize",
    "GaussianBlur",
]
