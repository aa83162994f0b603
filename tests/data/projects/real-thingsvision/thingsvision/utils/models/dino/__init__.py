from .vision_transformer import vit_base, vit_small, vit_tiny
