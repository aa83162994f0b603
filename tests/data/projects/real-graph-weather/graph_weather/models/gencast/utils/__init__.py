"""Utils for gencast."""

from .noise import generate_isotropic_noise
