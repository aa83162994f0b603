from .orthogonal import OrthogonalPermutation
from .fixed_permutation import FixedPermutation
from .random import RandomPermutation
from .swap import Swap
