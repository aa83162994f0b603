from .model import xLSTMLarge, xLSTMLargeConfig
from .model import mLSTMLayer, mLSTMLayerConfig