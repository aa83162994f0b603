from .config import TabTransformerConfig
from .tab_transformer import TabTransformerBackbone, TabTransformerModel

__all__ = ["TabTransformerBackbone", "TabTransformerModel", "TabTransformerConfig"]
