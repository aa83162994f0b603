from .base import Manifold
