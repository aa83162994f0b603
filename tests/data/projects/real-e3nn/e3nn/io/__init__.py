from ._cartesian_tensor import CartesianTensor
from ._spherical_tensor import SphericalTensor


__all__ = [
    "CartesianTensor",
    "SphericalTensor",
]
