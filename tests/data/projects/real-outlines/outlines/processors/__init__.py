"""Processors to control generation in steerable models."""

from .base_logits_processor import OutlinesLogitsProcessor

__all__ = [
    "OutlinesLogitsProcessor",
]
