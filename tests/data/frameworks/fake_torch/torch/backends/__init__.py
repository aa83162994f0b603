"""torch.backends."""

from torch.backends import cudnn, mps

__all__ = ["cudnn", "mps"]
