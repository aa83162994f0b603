from .ula import ULAIterator
from .SKRock import SKRockIterator, SKROCKIterator
from .sampling_iterator import SamplingIterator
from .diffusion import DiffusionIterator
