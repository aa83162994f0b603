"""
Runtime execution engine.
"""

from .block import PipelineBlock
from .engine import Engine


__all__ = ["PipelineBlock", "Engine"]
