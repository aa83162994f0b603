from .dataset import SubjectsDataset
from .image import Image
from .image import LabelMap
from .image import ScalarImage
from .inference import GridAggregator
from .loader import SubjectsLoader
from .queue import Queue
from .sampler import GridSampler
from .sampler import LabelSampler
from .sampler import PatchSampler
from .sampler import UniformSampler
from .sampler import WeightedSampler
from .subject import Subject

__all__ = [
    'Queue',
    'Subject',
    'SubjectsDataset',
    'SubjectsLoader',
    'Image',
    'ScalarImage',
    'LabelMap',
    'GridSampler',
    'GridAggregator',
    'PatchSampler',
    'LabelSampler',
    'WeightedSampler',
    'UniformSampler',
]
