"""
`continuiti.trainer`

Trainer for operator learning.
"""

from .trainer import Trainer

__all__ = ["Trainer"]
