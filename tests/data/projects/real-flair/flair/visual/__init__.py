from .activations import Highlighter
from .manifold import Visualizer

__all__ = ["Highlighter", "Visualizer"]
