"""Inference engine with strategy-based architecture"""

from .engine import InferenceEngine

__all__ = ["InferenceEngine"]
