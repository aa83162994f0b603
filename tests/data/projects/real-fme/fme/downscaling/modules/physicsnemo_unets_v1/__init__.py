from .layers import Linear, PositionalEmbedding
from .unets import SongUNet
