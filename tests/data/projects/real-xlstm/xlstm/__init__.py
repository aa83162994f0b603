__version__ = "2.0.6"

from .blocks.mlstm.block import mLSTMBlock, mLSTMBlockConfig
from .blocks.mlstm.layer import mLSTMLayer, mLSTMLayerConfig
from .blocks.slstm.block import sLSTMBlock, sLSTMBlockConfig
from .blocks.slstm.layer import sLSTMLayer, sLSTMLayerConfig
from .components.feedforward import FeedForwardConfig, GatedFeedForward
from .xlstm_block_stack import xLSTMBlockStack, xLSTMBlockStackConfig
from .xlstm_lm_model import xLSTMLMModel, xLSTMLMModelConfig
