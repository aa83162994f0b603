# Copyright contributors to the Terratorch project

from .single import (
    RandomMultiSampler,
    SequentialMultiSampler,
)
