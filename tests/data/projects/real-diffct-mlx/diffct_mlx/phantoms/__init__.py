"""Built-in phantom generators + analytic phantom engine."""

from .shepp_logan import shepp_logan_2d, shepp_logan_3d
from .engine import Ellipsoid, Phantom, shepp_logan_phantom

__all__ = [
    "shepp_logan_2d",
    "shepp_logan_3d",
    "Ellipsoid",
    "Phantom",
    "shepp_logan_phantom",
]
