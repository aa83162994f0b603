from .mlp import MultiMLP
from .rnn import MultiRNN

__all__ = [
    'MultiMLP',
    'MultiRNN',
]

classes = __all__
