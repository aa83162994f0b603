from .datamodule import MambularDataModule
from .dataset import MambularDataset

__all__ = ["MambularDataModule", "MambularDataset"]
