from .crossentropy import CrossEntropyLoss
from .dice import DiceLoss, dice_loss
from .umap import UmapLoss, umap_loss

__all__ = [
    "CrossEntropyLoss",
    "DiceLoss",
    "dice_loss",
    "UmapLoss",
    "umap_loss",
]
