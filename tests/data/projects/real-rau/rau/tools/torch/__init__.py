from .compose import (
    BasicComposable,
    Composable,
    Composed
)
from .embedding_layer import EmbeddingLayer
from .layer import Layer, FeedForward, MultiLayer
from .tied_linear import TiedLinear, get_linear
from .model_interface import ModelInterface, parse_device
from .profile import (
    ProfileResult,
    profile,
    get_current_memory,
    reset_memory_profiler,
    get_peak_memory
)