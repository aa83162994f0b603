from .soup import soup
from .util import idct_basis_2d, idct_basis_3d

# TODO(guanhuaw@umich.edu): The OMP algorithm
__all__ = ["idct_basis_2d", "idct_basis_3d", "soup"]
