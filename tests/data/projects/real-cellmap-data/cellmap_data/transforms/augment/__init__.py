from .binarize import Binarize
from .gaussian_blur import GaussianBlur
from .gaussian_noise import GaussianNoise
from .nan_to_num import NaNtoNum
from .random_contrast import RandomContrast
from .random_gamma import RandomGamma

__all__ = [
    "GaussianNoise",
    "RandomContrast",
    "RandomGamma",
    "NaNtoNum",
    "Binarize",
    "GaussianBlur",
]
