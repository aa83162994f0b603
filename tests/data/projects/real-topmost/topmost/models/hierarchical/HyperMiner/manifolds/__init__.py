from .euclidean import Euclidean
# from .hyperboloid import Hyperboloid
from .poincare import PoincareBall
