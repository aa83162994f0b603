from .attention import (
    compute_causal_mask,
    compute_seq_mask,
    din_attention,
    multi_head_attention,
    tf_attention,
)
from .convolutional import conv_nn, max_pool
from .dense import dense_nn, shared_dense, tf_dense
from .embedding import embedding_lookup, seq_embeds_pooling, sparse_embeds_pooling
from .normalization import layer_normalization, normalize_embeds, rms_norm
from .recurrent import tf_rnn

__all__ = [
    "compute_causal_mask",
    "compute_seq_mask",
    "conv_nn",
    "dense_nn",
    "din_attention",
    "embedding_lookup",
    "layer_normalization",
    "max_pool",
    "multi_head_attention",
    "normalize_embeds",
    "rms_norm",
    "shared_dense",
    "seq_embeds_pooling",
    "sparse_embeds_pooling",
    "tf_attention",
    "tf_dense",
    "tf_rnn",
]
