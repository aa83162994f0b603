from ..layer import Layer
from ..dense import Dense

import euclid.core.math as math
from euclid.settings import xp


class MultiHeadAttention(Layer):

    def __init__(self, d_model, num_heads, causal=True):
        super().__init__()

        if d_model % num_heads != 0:
            raise ValueError(
                "d_model must be divisible by num_heads"
            )

        self.d_model = d_model
        self.num_heads = num_heads
        self.head_dim = d_model // num_heads
        self.causal = causal

        self.q_proj = Dense(d_model, d_model)
        self.k_proj = Dense(d_model, d_model)
        self.v_proj = Dense(d_model, d_model)

        self.out_proj = Dense(d_model, d_model)

    def forward(self, x):
        # x: (batch, sequence, d_model)

        Q = self.q_proj(x)
        K = self.k_proj(x)
        V = self.v_proj(x)

        # Split into heads
        batch, seq_len, _ = Q.data.shape

        Q = Q.reshape(
            batch, seq_len,
            self.num_heads, self.head_dim
        ).transpose([0, 2, 1, 3])

        K = K.reshape(
            batch, seq_len,
            self.num_heads, self.head_dim
        ).transpose([0, 2, 1, 3])

        V = V.reshape(
            batch, seq_len,
            self.num_heads, self.head_dim
        ).transpose([0, 2, 1, 3])

        # Attention scores
        scores = Q @ K.transpose([0, 1, 3, 2])

        scores = scores / (self.head_dim ** 0.5)

        # Causal mask
        if self.causal:
            mask = xp.triu(xp.ones((seq_len, seq_len), dtype=bool), k=1)

            scores = math.where(
                mask,
                -xp.inf,
                scores
            )

        # Attention probabilities
        scores = scores - scores.max(axis=-1, keepdims=True)
        attention = scores.exp()
        attention = attention / attention.sum(axis=-1, keepdims=True)

        # Weighted values
        output = attention @ V

        # Merge heads
        output = output.transpose([0, 2, 1, 3])

        output = output.reshape(
            batch, seq_len, self.d_model
        )

        return self.out_proj(output)

    def parameters(self):
        return (
            self.q_proj.parameters()
            + self.k_proj.parameters()
            + self.v_proj.parameters()
            + self.out_proj.parameters()
        )
