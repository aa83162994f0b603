"""Datasets and tools to load data in batches."""

from .collate import (
    collate_images_anns_meta,
    collate_images_targets_meta,
    collate_tracking_images_targets_meta,
)
from .factory import cli, configure, factory, DATAMODULES
from .image_list import ImageList, NumpyImageList, PilImageList
from .loader_with_reset import LoaderWithReset
from .module import DataModule
from .multimodule import MultiDataModule
from .torch_dataset import TorchDataset
