"""
AutoThink - Adaptive thinking approach for LLMs with query complexity classification and steering vectors.
"""

from .autothink import autothink_decode, AutoThinkProcessor

__all__ = ["autothink_decode", "AutoThinkProcessor"]
