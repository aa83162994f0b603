from ring_attention_pytorch.ring_attention import (
    RingAttention,
    RingTransformer,
    RingRotaryEmbedding,
    apply_rotary_pos_emb,
    default_attention
)

from ring_attention_pytorch.ring_flash_attention import (
    ring_flash_attn,
    ring_flash_attn_
)

from ring_attention_pytorch.ring_flash_attention_cuda import (
    ring_flash_attn_cuda,
    ring_flash_attn_cuda_
)

from ring_attention_pytorch.tree_attn_decoding import (
    tree_attn_decode
)
