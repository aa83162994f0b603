from kl_div_attention.kl_div_attention import (
    KLDivAttention,
    compute_kl_div_similarity
)
