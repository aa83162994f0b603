__version__ = "0.3"

from .neighbor_list import (
    compute_neighborlist,
    compute_neighborlist_n2,
    strict_nl,
)
from .geometry import compute_distances, compute_cell_shifts
from .naive_impl import build_naive_neighborhood
from .linked_cell import linked_cell
from .utils import ase2data
