from .manifold import Manifold
