from .utils import ModelDownloader

__all__ = ["ModelDownloader"]

