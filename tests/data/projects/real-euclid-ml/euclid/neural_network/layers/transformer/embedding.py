import numpy as np

from ..layer import Layer
from euclid.settings import xp
from euclid.core import Tensor


class Embedding(Layer):

    def __init__(
        self,
        vocab_size,
        embedding_dim,
    ):
        super().__init__()

        self.vocab_size = vocab_size
        self.embedding_dim = embedding_dim

        # ----------------------------------------------------
        # Embedding table
        #
        # [vocab_size, embedding_dim]
        # ----------------------------------------------------

        scale = np.sqrt(
            2.0 / embedding_dim
        )

        self.weight = Tensor(
            xp.random.randn(
                vocab_size,
                embedding_dim,
            ) * scale,
            requires_grad=True,
        )

    def forward(self, token_ids):

        # ----------------------------------------------------
        # token_ids
        #
        # [batch, seq_len]
        #
        # Must contain integer token IDs.
        # ----------------------------------------------------

        # token_ids is a Euclid Tensor.
        # We only need its underlying array for indexing.

        ids = token_ids.data.astype(
            xp.int64
        )

        # ----------------------------------------------------
        # Lookup
        # ----------------------------------------------------
        #
        # [batch, seq_len]
        #
        # becomes
        #
        # [batch, seq_len, embedding_dim]
        #

        output_data = self.weight.data[
            ids
        ]

        output = Tensor(
            output_data,
            requires_grad=True,
        )

        # ----------------------------------------------------
        # Backward
        # ----------------------------------------------------

        def backward():

            if output.grad is None:
                return

            if self.weight.grad is None:
                self.weight.grad = xp.zeros_like(
                    self.weight.data
                )

            flat_ids = ids.reshape(-1)
            flat_grad = output.grad.reshape(
                -1,
                self.embedding_dim,
            )

            # Give every (token, embedding_dim) pair a unique index
            token_offsets = (
                flat_ids[:, None] * self.embedding_dim
                + xp.arange(self.embedding_dim)[None, :]
            )

            # Flatten everything
            indices = token_offsets.reshape(-1)
            values = flat_grad.reshape(-1)

            # Accumulate duplicate indices
            grad_flat = xp.bincount(
                indices,
                weights=values,
                minlength=self.vocab_size * self.embedding_dim,
            )

            self.weight.grad += grad_flat.reshape(
                self.vocab_size,
                self.embedding_dim,
            )

        output._backward = backward

        return output

    def parameters(self):

        return [
            self.weight
        ]
    def get_config(self):
        return {
            "vocab_size":self.vocab_size,
            "embedding_dim":self.embedding_dim
        }