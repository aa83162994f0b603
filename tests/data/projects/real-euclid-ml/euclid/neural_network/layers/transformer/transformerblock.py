from ..layer import Layer
from .feedforward import FeedForward
from .multiheadattention import MultiHeadAttention
from .layernorm import LayerNorm


class TransformerBlock(Layer):

    def __init__(self, d_model, num_heads, ffdim, causal=True):
        super().__init__()

        self.d_model = d_model
        self.num_heads = num_heads
        self.ffdim = ffdim
        self.causal = causal

        self.norm1 = LayerNorm(d_model)

        self.attention = MultiHeadAttention(
            d_model,
            num_heads,
            causal=causal,
        )

        self.norm2 = LayerNorm(d_model)
        self.feedforward = FeedForward(d_model, ffdim)

    def forward(self, x):
        x = x + self.attention(self.norm1(x))
        x = x + self.feedforward(self.norm2(x))

        return x

    def parameters(self):
        return (
            self.norm1.parameters()
            + self.attention.parameters()
            + self.norm2.parameters()
            + self.feedforward.parameters()
        )

    def get_config(self):
        return {
            "d_model": self.d_model,
            "num_heads": self.num_heads,
            "ffdim": self.ffdim,
            "causal": self.causal,
        }