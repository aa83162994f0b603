"""CAREamics Lightning Data Modules."""

__all__ = [
    "CareamicsDataModule",
    "GroupedIndexSampler",
    "InputVar",
]

from .data_module import (
    CareamicsDataModule,
    InputVar,
)
from .grouped_index_sampler import GroupedIndexSampler
