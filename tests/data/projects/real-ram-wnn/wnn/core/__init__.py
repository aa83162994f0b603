"""
Core utilities and enums for WNN.

This module contains reusable enums and utilities used across the codebase.
"""

from wnn.core.thresholds import (
    OverfitThreshold,
    EarlyStopThreshold,
)

__all__ = [
    'OverfitThreshold',
    'EarlyStopThreshold',
]
