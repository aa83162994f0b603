from .curvature import Curvature
from .manifold import PoincareBall
