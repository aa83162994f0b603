# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""
ApeironLoss  (v0.0.2)
======================
Standalone loss module that mirrors the losses computed inside
ApeironLM.forward().  Useful when writing a custom training loop.
"""

from __future__ import annotations

from typing import Optional
import torch
import torch.nn as nn
import torch.nn.functional as F

from apeiron_lm.nn.latent_explorer import LatentExplorer


class ApeironLoss(nn.Module):
    """
    Combined training loss for Apeiron LM.

    L = L_CE + α·L_len + β·L_div + γ·L_novelty

    Parameters
    ----------
    alpha : float   — length prediction weight
    beta  : float   — diversity weight
    gamma : float   — novelty weight
    label_smoothing : float
    """

    def __init__(
        self,
        alpha:           float = 0.1,
        beta:            float = 0.01,
        gamma:           float = 0.01,
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__()
        self.alpha           = alpha
        self.beta            = beta
        self.gamma           = gamma
        self.label_smoothing = label_smoothing

    def forward(
        self,
        logits:         torch.Tensor,
        target_bytes:   torch.Tensor,
        n_continuous:   torch.Tensor,
        target_lengths: torch.Tensor,
        novelty_scores: torch.Tensor,
        candidates:     Optional[torch.Tensor] = None,
    ) -> dict:
        """
        Compute all loss terms.

        Parameters
        ----------
        logits         : (B, N, 256)
        target_bytes   : (B, N)       — padding = -1
        n_continuous   : (B,)         — continuous length prediction
        target_lengths : (B,)
        novelty_scores : (B,)
        candidates     : (B, K, C) or None

        Returns
        -------
        dict with keys: loss, loss_ce, loss_len, loss_div, loss_novelty
        """
        L_CE = F.cross_entropy(
            logits.reshape(-1, 256),
            target_bytes.reshape(-1),
            ignore_index    = -1,
            label_smoothing = self.label_smoothing,
        )

        L_len = F.huber_loss(
            n_continuous, target_lengths.float(), delta=1.0
        )

        L_div = (
            LatentExplorer.diversity_loss(candidates)
            if candidates is not None
            else torch.zeros(1, device=logits.device).squeeze()
        )

        with torch.no_grad():
            per_sample_ce = F.cross_entropy(
                logits.detach().reshape(-1, 256),
                target_bytes.reshape(-1),
                ignore_index = -1,
                reduction    = "none",
            ).view(logits.size(0), -1).mean(dim=-1)

        # Novelty loss: encourage high novelty predictions when per-sample CE is low
        L_novelty = F.mse_loss(novelty_scores, (1.0 - per_sample_ce.clamp(0, 1)).detach())

        loss = (
            L_CE
            + self.alpha * L_len
            + self.beta  * L_div
            + self.gamma * L_novelty
        )

        return {
            "loss":         loss,
            "loss_ce":      L_CE,
            "loss_len":     L_len,
            "loss_div":     L_div,
            "loss_novelty": L_novelty,
        }

    def extra_repr(self) -> str:
        return (
            f"alpha={self.alpha}, beta={self.beta}, gamma={self.gamma}, "
            f"label_smoothing={self.label_smoothing}"
        )
