"""Losses Pydantic configurations."""

__all__ = [
    "KLLossConfig",
    "LVAELossConfig",
]

from .loss_config import KLLossConfig, LVAELossConfig
