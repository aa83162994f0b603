from torch import Tensor, nn

from .convnext import ConvNextBlock, ConvNextV2Block
from .dico import DiCoBlock
from .lrformer import LRFormerBlock
from .nafnet import NAFNetBlock
from .nafnext import NAFNextBlock
from .resnet import ResNetBlock
from .restormer import RestormerBlock
from .segformer import SegformerBlock
from .vit import ViTBlock


class IdentityBlock(nn.Module):
    """Identity block. Does nothing."""

    def __init__(
        self,
        channels: int,
        condition_dim: int | None = None,
    ):
        super().__init__()

    def forward(self, x: Tensor, c: Tensor | None = None) -> Tensor:
        return x


__all__ = [
    "ConvNextBlock",
    "ConvNextV2Block",
    "DiCoBlock",
    "IdentityBlock",
    "LRFormerBlock",
    "NAFNetBlock",
    "NAFNextBlock",
    "ResNetBlock",
    "RestormerBlock",
    "SegformerBlock",
    "ViTBlock",
]
