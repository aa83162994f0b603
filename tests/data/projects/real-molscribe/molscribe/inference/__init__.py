from .greedy_search import GreedySearch
from .beam_search import BeamSearch

__all__ = ["GreedySearch", "BeamSearch"]
