"""Hakuli: memory-efficient optimizer for full-parameter LLM training.

Developed by XAEDRO.
"""

from hakuli.optim import Hakuli

__all__ = ["Hakuli"]
__version__ = "2.1.0"
