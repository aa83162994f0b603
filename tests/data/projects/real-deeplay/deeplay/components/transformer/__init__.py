from .satt import MultiheadSelfAttention
from .ldsn import LayerDropoutSkipNormalization
from .enc import Add, TransformerEncoderLayer
from .pemb import PositionalEmbedding, IndexedPositionalEmbedding
