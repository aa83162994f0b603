"""A package for the `PredictionWriterCallback` class and utilities."""

__all__ = [
    "ImageWriteStrategy",
    "PredictionWriterCallback",
    "TileWriteStrategy",
    "WriteStrategy",
    "ZarrTileWriteStrategy",
    "create_write_file_path",
    "create_write_strategy",
    "decollate_image_region_data",
    "select_write_extension",
    "select_write_func",
]

from .file_path_utils import create_write_file_path
from .image_write_strategy import ImageWriteStrategy
from .prediction_writer_callback import (
    PredictionWriterCallback,
    decollate_image_region_data,
)
from .tile_write_strategy import TileWriteStrategy
from .write_strategy import WriteStrategy
from .write_strategy_factory import (
    create_write_strategy,
    select_write_extension,
    select_write_func,
)
from .zarr_tile_write_strategy import ZarrTileWriteStrategy
