from .chacha20 import chacha20_blocks, make_chacha20_state
from .rns import RnsRandomStreams
from .sampling import bounded_uint64, discrete_gaussian, stochastic_round
from .stream import ChaCha20Rng

__all__ = [
    "ChaCha20Rng",
    "RnsRandomStreams",
    "bounded_uint64",
    "chacha20_blocks",
    "discrete_gaussian",
    "make_chacha20_state",
    "stochastic_round",
]
