from .kmeans import FastKMeans

__all__ = ["FastKMeans"]
__version__ = "0.5.0"
