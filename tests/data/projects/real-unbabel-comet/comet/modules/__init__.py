# flake8: noqa
from .feedforward import FeedForward
from .layerwise_attention import LayerwiseAttention
