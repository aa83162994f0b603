from advsecurenet.dataloader.data_loader_factory import DataLoaderFactory

__all__ = ["DataLoaderFactory"]
