"""Neural-network layers.

Both activation and convolutional layers are re-exported here for concise
model definitions; the ``activations`` and ``cnn`` submodules remain available
when more explicit grouping is useful.
"""

from .layer import Layer
from .dense import Dense
from .dropout import Dropout
from . import activations, cnn, transformer
from .activations import Activation, GELU, LeakyReLU, Linear, ReLU, Sigmoid, Softmax, Tanh
from .cnn import Conv2D, Flatten, MaxPool2D, Reshape, Upsample2D, Conv2DTranspose
from .transformer import FeedForward, LayerNorm, MultiHeadAttention, TransformerBlock, Embedding, PositionalEncoding

__all__ = [
    "Layer", "Dense", "Dropout", "activations", "cnn", "transformer", "Activation",
    "GELU", "LeakyReLU", "Linear", "ReLU", "Sigmoid", "Softmax", "Tanh",
    "Conv2D", "Flatten", "MaxPool2D", "Reshape", "Upsample2D", "Conv2DTranspose",
    "FeedForward", "LayerNorm", "MultiHeadAttention", "TransformerBlock", "Embedding", "PositionalEncoding"
]
