"""Losses module."""

__all__ = [
    "denoisplit_loss",
    "denoisplit_musplit_loss",
    "hdn_loss",
    "lvae_loss_factory",
    "musplit_loss",
    "n2v_loss",
    "pn2v_loss",
]

from .lvae import (
    denoisplit_loss,
    denoisplit_musplit_loss,
    hdn_loss,
    lvae_loss_factory,
    musplit_loss,
)
from .n2v_losses import n2v_loss, pn2v_loss
