from .swin_transformer import SwinTransformerNet

__all__ = ["SwinTransformerNet"]
