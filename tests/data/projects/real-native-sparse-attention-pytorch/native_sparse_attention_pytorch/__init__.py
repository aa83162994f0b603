from native_sparse_attention_pytorch.native_sparse_attention import (
    SparseAttention
)
