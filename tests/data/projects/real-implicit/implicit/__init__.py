from . import als, approximate_als, bpr, lmf, nearest_neighbours

__version__ = "0.7.2"

__all__ = ["als", "approximate_als", "bpr", "nearest_neighbours", "lmf", "__version__"]
