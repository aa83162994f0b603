from .utils import (
    LazyLinear as LazyLinear,
    MaskedSoftmax as MaskedSoftmax,
    masked_softmax as masked_softmax,
    get_feat_dim as get_feat_dim,
    SinusoidalPositionalEncodingND as SinusoidalPositionalEncodingND,
)
from .mean_pool import MeanPool as MeanPool
from .max_pool import MaxPool as MaxPool

from .sm import Sm as Sm, ApproxSm as ApproxSm, ExactSm as ExactSm

from .attention import (
    AttentionPool as AttentionPool,
    ProbSmoothAttentionPool as ProbSmoothAttentionPool,
    SmAttentionPool as SmAttentionPool,
    MultiheadSelfAttention as MultiheadSelfAttention,
    MultiheadCrossAttention as MultiheadCrossAttention,
    iRPEMultiheadSelfAttention as iRPEMultiheadSelfAttention,
    NystromAttention as NystromAttention,
)

from .transformers import (
    TransformerLayer as TransformerLayer,
    SmTransformerLayer as SmTransformerLayer,
    NystromTransformerLayer as NystromTransformerLayer,
    iRPETransformerLayer as iRPETransformerLayer,
    T2TLayer as T2TLayer,
    Encoder as Encoder,
    TransformerEncoder as TransformerEncoder,
    SmTransformerEncoder as SmTransformerEncoder,
    NystromTransformerEncoder as NystromTransformerEncoder,
    iRPETransformerEncoder as iRPETransformerEncoder,
)

from .gnns import (
    GCNConv as GCNConv,
    DeepGCNLayer as DeepGCNLayer,
    ChebConv as ChebConv,
    dense_mincut_pool as dense_mincut_pool,
)

from .mlp import MLP as MLP
from .variational_autoencoder import (
    VariationalAutoEncoder as VariationalAutoEncoder,
    VariationalAutoEncoderMIL as VariationalAutoEncoderMIL,
)
