from .transforms import (
    Transform, Compose, Identity, Normalize, HighpassFilter,
    RandomGain, ColoredNoise, RandomBandpass, ResampleTime,
    RandomCrop, StackEvents, SampleBuffer,
)
from .das import DASDataset, DASIterableDataset
from .ceed import CEEDDataset, CEEDIterableDataset
