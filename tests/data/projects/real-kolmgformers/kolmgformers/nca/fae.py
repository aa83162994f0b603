"""
kolmgformers/nca/fae.py  v2.0.6
================================
NCA — Module 2: FreeAssociationEngine (Default Mode Network analog)

Operates entirely in latent space. No token generation.
Produces K candidate latent vectors by applying a semantic distance
bonus that pushes representations away from the kNN centroid, then
optionally bridges two distant domain anchors.

Cost: O(K * C) per round. Fully token-free.
"""

from __future__ import annotations
from typing import List, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

from kolmgformers.nca.novelty import NCAConfig


__all__ = ["FreeAssociationEngine"]


class FreeAssociationEngine(nn.Module):
    """
    Free Association Engine — Default Mode Network analog.

    Generates K candidate latent vectors by:
      1. Applying a semantic distance bonus: push v away from kNN centroid.
      2. Domain bridging: bias toward the midpoint of two distant domain anchors.

    All operations are matrix multiplications on fixed-size vectors.
    No attention over sequences. No token generation at any point.

    Args:
        hidden_size: Model hidden dimension C.
        config:      NCAConfig.
    """

    def __init__(self, hidden_size: int, config: NCAConfig):
        super().__init__()
        self.config      = config
        self.hidden_size = hidden_size
        self.K           = config.candidates_per_round

        # Diversity projection: produces K different exploration directions
        self.diversity_proj = nn.Linear(hidden_size, hidden_size * self.K, bias=False)

        # Domain anchor store (updated externally if domain knowledge available)
        self.register_buffer("_domain_anchors", torch.zeros(0, hidden_size))

        self._init_weights()

    def _init_weights(self) -> None:
        nn.init.orthogonal_(self.diversity_proj.weight)

    def register_domain_anchors(self, anchors: torch.Tensor) -> None:
        """
        Register domain anchor vectors for domain bridging.

        Args:
            anchors: Tensor (N_domains, C) of mean domain embeddings.
        """
        self._domain_anchors = F.normalize(anchors.float(), dim=-1).detach()

    def forward(
        self,
        v_input:     torch.Tensor,
        knn_centroid: Optional[torch.Tensor] = None,
        constraint:  Optional[torch.Tensor] = None,
    ) -> torch.Tensor:
        """
        Generate K candidate latent vectors from a request embedding.

        Args:
            v_input:      Request representation, shape (B, C).
            knn_centroid: Mean of k-nearest-neighbor embeddings, shape (B, C).
                          If None, no distance bonus is applied.
            constraint:   Optional constraint direction to avoid, shape (B, C).
                          Steers away from previous failure modes.

        Returns:
            Candidate latent vectors, shape (B, K, C).
        """
        B, C = v_input.shape

        # ── Distance bonus: move away from familiar territory ─────────────────
        v_explore = v_input.clone()
        if knn_centroid is not None:
            # Direction away from kNN centroid
            diff       = v_input - knn_centroid
            norm_diff  = F.normalize(diff + 1e-8, dim=-1)
            v_explore  = v_input + self.config.lambda_fae * norm_diff

        # ── Apply constraint (from EE failure signal) ──────────────────────────
        if constraint is not None:
            # Project out the constraint direction: remove it from v_explore
            c_norm    = F.normalize(constraint, dim=-1)
            proj      = (v_explore * c_norm).sum(dim=-1, keepdim=True) * c_norm
            v_explore = v_explore - 0.5 * proj

        # ── Diversity: produce K different directions ──────────────────────────
        # diversity_proj: (B, C) → (B, K*C) → (B, K, C)
        candidates = self.diversity_proj(v_explore).view(B, self.K, C)
        candidates = candidates + v_explore.unsqueeze(1)   # residual

        # ── Domain bridging ────────────────────────────────────────────────────
        if self._domain_anchors.size(0) >= 2:
            bridge = self._domain_bridge(v_explore, B, C, v_input.device)
            # Add bridge bias to all candidates equally
            candidates = candidates + bridge.unsqueeze(1) * 0.3

        # L2 normalize each candidate
        candidates = F.normalize(candidates, dim=-1)

        return candidates   # (B, K, C)

    def _domain_bridge(
        self,
        v: torch.Tensor,
        B: int,
        C: int,
        device: torch.device,
    ) -> torch.Tensor:
        """
        Sample two distant domain anchors and return their midpoint as a bias.

        Picks the domain anchor most distant from the input for maximum bridging.
        """
        anchors = self._domain_anchors.to(device)   # (N_d, C)
        v_norm  = F.normalize(v, dim=-1)             # (B, C)

        # Similarity of each input to each domain: (B, N_d)
        sim = v_norm @ anchors.T
        N_d = anchors.size(0)
        k   = min(self.config.domain_bridge_k, N_d)

        # Most distant domains (lowest similarity)
        _, distant_idx = sim.topk(k, dim=-1, largest=False)   # (B, k)

        # Midpoint of sampled domain anchors
        sampled  = anchors[distant_idx]           # (B, k, C)
        midpoint = sampled.mean(dim=1)            # (B, C)
        return F.normalize(midpoint, dim=-1)
