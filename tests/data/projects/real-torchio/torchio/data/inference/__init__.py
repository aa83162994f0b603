from ..sampler import GridSampler  # for backward compatibility
from .aggregator import GridAggregator

__all__ = [
    'GridSampler',
    'GridAggregator',
]
