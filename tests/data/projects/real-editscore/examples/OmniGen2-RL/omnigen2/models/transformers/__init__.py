from .transformer_omnigen2 import OmniGen2Transformer2DModel

__all__ = ["OmniGen2Transformer2DModel"]