from .manifold import Euclidean
