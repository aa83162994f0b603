from .force_resample import ForceResample
from .intensity import IntensityTransform, RandomIntensityTransform
from .norm import Norm, RandomNorm
from .rescale import RandomRescale, Rescale
from .threshold import RandomThreshold, Threshold
