from .drr import DRR
from .renderer import render

__all__ = ["DRR", "render"]
