from rotary_embedding_torch.rotary_embedding_torch import (
    apply_rotary_emb,
    RotaryEmbedding,
    apply_learned_rotations,
    broadcat
)
