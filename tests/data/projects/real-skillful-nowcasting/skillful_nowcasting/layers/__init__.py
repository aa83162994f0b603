from .Attention import AttentionLayer
from .ConvGRU import ConvGRU
from .CoordConv import CoordConv
