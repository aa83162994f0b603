"""Data preparation: preprocess a dataset once, train fast afterwards."""

from .image_cache import CachedImageDataset, ImageCache

__all__ = ["ImageCache", "CachedImageDataset"]
