from ._base import PostprocessorBase
from .seen_items import SeenItemsFilter
