from .datamodule import BaseDataModule
from .dataset import EuclideanDataset

__all__ = ["BaseDataModule", "EuclideanDataset"]
