from .download import _download_asset


__all__ = ["_download_asset"]
