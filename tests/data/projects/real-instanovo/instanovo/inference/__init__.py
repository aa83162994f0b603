from instanovo.inference.beam_search import BeamSearchDecoder
from instanovo.inference.greedy_search import GreedyDecoder
from instanovo.inference.interfaces import Decodable, Decoder, ScoredSequence
from instanovo.inference.knapsack import Knapsack
from instanovo.inference.knapsack_beam_search import KnapsackBeamSearchDecoder

__all__ = [
    "ScoredSequence",
    "Decodable",
    "Decoder",
    "BeamSearchDecoder",
    "GreedyDecoder",
    "KnapsackBeamSearchDecoder",
    "Knapsack",
]
