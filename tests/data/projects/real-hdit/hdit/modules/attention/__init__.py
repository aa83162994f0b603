from . import neighborhood_attention
from . import self_attention
from . import shifted_self_attention
try:
    from .neighborhood_attention import NeighborhoodConvAttention, NeighborhoodSelfAttentionBlock, NeighborhoodTransformerLayer
except:
    NeighborhoodConvAttention = None
    NeighborhoodSelfAttentionBlock = None
    NeighborhoodTransformerLayer = None
from .self_attention import SelfAttentionBlock, GlobalTransformerLayer
from .shifted_self_attention import ShiftedWindowSelfAttentionBlock, ShiftedWindowTransformerLayer