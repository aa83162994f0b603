"""Submodules for the layers."""

from .ConditionTime import ConditionTime
from .ConvGRU import ConvGRU
from .DownSampler import DownSampler
from .Preprocessor import MetNetPreprocessor
from .TimeDistributed import TimeDistributed
