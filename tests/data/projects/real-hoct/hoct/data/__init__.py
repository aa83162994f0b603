"""Data loading and batching utilities for HOCT inference."""

from hoct.data._batching import (
    DataItem,
    DataKeys,
    collate_varying_length,
    item_from_filter,
)
from hoct.data._frame_dataset import FrameDataset, GraphConcatDataset
from hoct.data._labeled_dataset import LabeledDataset
from hoct.data._tiled_dataset import Tile, TiledRoiDataset

__all__ = [
    "DataItem",
    "DataKeys",
    "FrameDataset",
    "GraphConcatDataset",
    "LabeledDataset",
    "Tile",
    "TiledRoiDataset",
    "collate_varying_length",
    "item_from_filter",
]
