from .choose_max_count import ChooseMaxCount
from .aggregate import Aggregate

__all__ = ["ChooseMaxCount", "Aggregate"]
