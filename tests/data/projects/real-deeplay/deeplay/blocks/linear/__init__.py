from .linear import LinearBlock
