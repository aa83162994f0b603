"""Yoyodyne modules."""

from .attention import Attention  # noqa: F401
from .base import BaseEncoder  # noqa: F401
from .base import BaseModule  # noqa: F401
from .generation_probability import GenerationProbability  # noqa: F401
from .hard_attention import ContextHardAttentionGRUDecoder  # noqa: F401
from .hard_attention import ContextHardAttentionLSTMDecoder  # noqa: F401
from .hard_attention import (  # noqa: F401
    ContextHardAttentionRotaryTransformerDecoder,
)
from .hard_attention import (  # noqa: F401
    ContextHardAttentionTransformerDecoder,
)
from .hard_attention import HardAttentionGRUDecoder  # noqa: F401
from .hard_attention import HardAttentionLSTMDecoder  # noqa: F401
from .hard_attention import HardAttentionRNNDecoder  # noqa: F401
from .hard_attention import HardAttentionRotaryTransformerDecoder  # noqa: F401
from .hard_attention import HardAttentionTransformerDecoder  # noqa: F401
from .linear import LinearEncoder  # noqa: F401
from .position import AbsolutePositionalEncoding  # noqa: F401
from .position import BasePositionalEncoding  # noqa: F401
from .position import NullPositionalEncoding  # noqa: F401
from .position import RotaryPositionalEncoding  # noqa: F401
from .position import SinusoidalPositionalEncoding  # noqa: F401
from .rnn import GRUDecoder  # noqa: F401
from .rnn import GRUEncoder  # noqa: F401
from .rnn import LSTMDecoder  # noqa: F401
from .rnn import LSTMEncoder  # noqa: F401
from .rnn import RNNDecoder  # noqa: F401
from .rnn import RNNState  # noqa: F401
from .rnn import SoftAttentionGRUDecoder  # noqa: F401
from .rnn import SoftAttentionLSTMDecoder  # noqa: F401
from .pointer_generator import (  # noqa: F401
    PointerGeneratorRotaryTransformerDecoder,
)
from .pointer_generator import PointerGeneratorTransformerDecoder  # noqa: F401
from .transformer import CausalRotaryTransformerDecoder  # noqa: F401
from .transformer import CausalTransformerDecoder  # noqa: F401
from .transformer import FeatureInvariantRotaryTransformerEncoder  # noqa: F401
from .transformer import FeatureInvariantTransformerEncoder  # noqa: F401
from .transformer import RotaryTransformerDecoder  # noqa: F401
from .transformer import RotaryTransformerEncoder  # noqa: F401
from .transformer import SeparateFeaturesTransformerDecoder  # noqa: F401
from .transformer import TransformerDecoder  # noqa: F401
from .transformer import TransformerEncoder  # noqa: F401
