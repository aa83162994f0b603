"""Data classes."""

from .batches import Batch, PaddedTensor  # noqa: F401
from .datamodules import DataModule, Error  # noqa: F401
from .indexes import Index  # noqa: F401
from .mappers import Mapper  # noqa: F401
from .tsv import TsvParser  # noqa: F401
