from ...unfold import GaussianMixtureTorch
from .filter_bank import FilterBank, STFT, LearnedFilterBank
from .blocks import (
    AmplitudeToDB,
    Alias,
    ShiftAndScale, 
    BatchNorm,
    InstanceNorm,
    GroupNorm,
    LayerNorm,
    MelProjection,
    Embedding,
    Mask,
    Split,
    Expand,
    Concatenate,
    RecurrentStack,
    ConvolutionalStack2D,
    DualPathBlock,
    DualPath,
)
