"""RoundPipe's implementation of CPU optimizers.
The behavior is consistent to that of PyTorch optimizers,
and optimized for fp32 stepping on CPU.
"""

from .adam import Adam

__all__ = [
    "Adam",
]
