from long_net.attention import DilatedAttention
from long_net.model import LongNetTransformer

__all__ = ["DilatedAttention", "LongNetTransformer"]
