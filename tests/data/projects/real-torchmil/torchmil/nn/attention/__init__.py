from .attention_pool import AttentionPool as AttentionPool
from .prob_smooth_attention_pool import (
    ProbSmoothAttentionPool as ProbSmoothAttentionPool,
)
from .sm_attention_pool import SmAttentionPool as SmAttentionPool

from .multihead_self_attention import MultiheadSelfAttention as MultiheadSelfAttention
from .multihead_cross_attention import (
    MultiheadCrossAttention as MultiheadCrossAttention,
)
from .irpe_multihead_self_attention import (
    iRPEMultiheadSelfAttention as iRPEMultiheadSelfAttention,
)
from .nystrom_attention import NystromAttention as NystromAttention
