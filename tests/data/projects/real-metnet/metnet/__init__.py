"""Modules for the MetNet package."""

from metnet.models.metnet import MetNet
from metnet.models.metnet2 import MetNet2
from metnet.models.metnet_pv import MetNetPV

from .layers import (
    ConditionTime,
    ConditionWithTimeMetNet2,
    ConvGRU,
    ConvLSTM,
    CoordConv,
    DilatedCondConv,
    DownSampler,
    LeadTimeConditioner,
    MaxViT,
    MBConv,
    MetNetPreprocessor,
    MultiheadSelfAttention2D,
    PartitionAttention,
    Preprocessor,
    RelativePositionBias,
    SqueezeExcitation,
    StochasticDepth,
    TimeDistributed,
    utils,
)
