"""
Implementations of pair finding, pair index manipulation, and analysis of pairs
"""

# Possible TODO do periodic coordinates ever need to be differentiable with respect to the cell
# For volume changes?

from .open import OpenPairIndexer, _PairIndexer

from .periodic import PeriodicPairIndexer

from .filters import FilterDistance

from .indexing import (
    ExternalNeighbors,
    PairDeIndexer,
    PairReIndexer,
    PairCacher,
    PairUncacher,
    MolPairSummer,
    PaddedNeighModule,
)

from .analysis import RDFBins, MinDistModule

from .dispatch import NPNeighbors, TorchNeighbors
