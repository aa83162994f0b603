"""Pointer-generator models."""

from .rnn import PointerGeneratorGRUModel  # noqa: F401
from .rnn import PointerGeneratorLSTMModel  # noqa: F401
from .transformer import PointerGeneratorRotaryTransformerModel  # noqa: F401
from .transformer import PointerGeneratorTransformerModel  # noqa: F401
