__all__ = ["crossover", "mutation", "sampling", "selection", "crowding_distance", "non_dominate_rank"]

from . import crossover, mutation, sampling, selection
from .selection import crowding_distance, non_dominate_rank
