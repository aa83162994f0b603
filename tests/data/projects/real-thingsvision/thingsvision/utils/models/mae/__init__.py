from .vit_mae import vit_base_patch16, vit_huge_patch14, vit_large_patch16
from .utils import interpolate_pos_embed
