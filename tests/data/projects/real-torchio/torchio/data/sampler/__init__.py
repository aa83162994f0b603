from .grid import GridSampler
from .label import LabelSampler
from .sampler import PatchSampler
from .sampler import RandomSampler
from .uniform import UniformSampler
from .weighted import WeightedSampler

__all__ = [
    'GridSampler',
    'LabelSampler',
    'UniformSampler',
    'WeightedSampler',
    'PatchSampler',
    'RandomSampler',
]
