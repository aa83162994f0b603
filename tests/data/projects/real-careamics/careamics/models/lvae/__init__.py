__all__ = ["LadderVAE"]

from .lvae import LadderVAE
