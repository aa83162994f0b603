"""Pipelines that merge together single model training steps."""

__all__ = ["base"]
