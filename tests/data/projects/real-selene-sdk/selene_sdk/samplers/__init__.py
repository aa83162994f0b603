"""
This module provides classes and methods for sampling labeled data
examples.
"""
from .sampler import Sampler
from .online_sampler import OnlineSampler
from .intervals_sampler import IntervalsSampler
from .random_positions_sampler import RandomPositionsSampler
from .multi_sampler import MultiSampler, MultiFileSampler 
from . import file_samplers

__all__ = ["Sampler",
           "OnlineSampler",
           "IntervalsSampler",
           "RandomPositionsSampler",
           "MultiSampler",
           "MultiFileSampler",
           "file_samplers"]
