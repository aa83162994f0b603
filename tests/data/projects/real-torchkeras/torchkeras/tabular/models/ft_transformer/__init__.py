from .config import FTTransformerConfig
from .ft_transformer import FTTransformerBackbone, FTTransformerModel

__all__ = ["FTTransformerBackbone", "FTTransformerModel", "FTTransformerConfig"]
