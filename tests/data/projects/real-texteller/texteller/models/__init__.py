from .texteller import TexTeller

__all__ = ["TexTeller"]
