from .model_downloader import ModelDownloader

__all__ = ["ModelDownloader"]

