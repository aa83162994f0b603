from .causal_lm import generate_causal_lm
from .molexar import generate_molexar
from .seq2seq import DEFAULT_MOLGEN_PREFIX_SELFIES, generate_seq2seq

__all__ = [
    "generate_causal_lm",
    "generate_molexar",
    "generate_seq2seq",
    "DEFAULT_MOLGEN_PREFIX_SELFIES",
]
