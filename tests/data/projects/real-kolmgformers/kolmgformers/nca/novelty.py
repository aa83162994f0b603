"""
kolmgformers/nca/novelty.py  v2.0.6
====================================
NCA — Module 1: NoveltyDetector (Salience Network analog)

Computes a novelty score N ∈ [0,1] for every incoming request.
  - N < theta_N  → standard generation (fast path, no NCA overhead)
  - N >= theta_N → Creative Mode activated (DMN/ECN loop)

Knowledge density measure:
    Density(x) = mean_i[ sim(x, neighbor_i) ]   for i in kNN(x, k=50)
    N          = 1 - sigmoid(w_nd * Density + b_nd)

The kNN centroid is computed against an in-memory embedding index built
from training or from an optional external embedding store.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


__all__ = [
    "NCAConfig",
    "NoveltyDetector",
]


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── NCA Configuration ─────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

@dataclass
class NCAConfig:
    """
    Configuration for the Neuro-Creative Architecture v2.

    Fields:
        enabled:               Master switch. False = standard generation always.
        novelty_threshold:     theta_N. Above this → Creative Mode. [0,1]
        eval_threshold:        theta_E. Candidate score needed to promote. [0,1]
        candidates_per_round:  K. FAE generates this many latent vectors per round.
        max_rounds:            Maximum DMN/ECN loop iterations before giving up.
        lambda_fae:            Distance bonus strength in FAE latent exploration.
        mu_novelty_bonus:      Novelty bonus weight in EE usefulness score.
        domain_bridge_k:       Number of random domains to bridge per FAE round.
        knn_neighbors:         k for density computation in the Novelty Detector.
        prl_depth:             Number of MLP layers in the Pre-verbal Reasoning Layer.
        prl_use_constraints:   Whether PRL applies hard constraint projections.
    """
    enabled:              bool  = False
    novelty_threshold:    float = 0.7
    eval_threshold:       float = 0.6
    candidates_per_round: int   = 8
    max_rounds:           int   = 5
    lambda_fae:           float = 0.3
    mu_novelty_bonus:     float = 0.2
    domain_bridge_k:      int   = 2
    knn_neighbors:        int   = 50
    prl_depth:            int   = 3
    prl_use_constraints:  bool  = True


# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
# ── Novelty Detector ─────────────────────────────────────────────────────────
# ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━

class NoveltyDetector(nn.Module):
    """
    Novelty Detector — Salience Network analog.

    Computes a scalar novelty score N ∈ [0,1] for a request embedding.
    High N = sparse knowledge neighborhood = Creative Mode should activate.

    The detector maintains a reference embedding index of known concepts.
    At inference, it finds the k-nearest neighbors of the request in this
    index and measures the mean cosine similarity (knowledge density).
    Low density → high novelty.

    A learned calibration function (sigmoid with learned w_nd, b_nd) maps
    the raw density to a calibrated novelty score that corresponds to
    human-perceived novelty categories.

    Args:
        hidden_size: Model hidden dimension (= embedding dimension).
        config:      NCAConfig.
    """

    def __init__(self, hidden_size: int, config: NCAConfig):
        super().__init__()
        self.config      = config
        self.hidden_size = hidden_size
        self.k           = config.knn_neighbors

        # Learned calibration: density → novelty score
        self.w_nd = nn.Parameter(torch.tensor(2.0))
        self.b_nd = nn.Parameter(torch.tensor(0.0))

        # Reference embedding index (B_ref, C). Populated via register_index().
        self.register_buffer("_index", torch.zeros(0, hidden_size))
        self._index_size = 0

    # ── Public API ────────────────────────────────────────────────────────────

    def register_index(self, embeddings: torch.Tensor) -> None:
        """
        Set the reference embedding index.

        Args:
            embeddings: Tensor of shape (N, C) representing known concepts.
                        Typically mean-pooled hidden states from training data.
        """
        normed = F.normalize(embeddings.float(), dim=-1)
        self._index      = normed.detach()
        self._index_size = normed.size(0)
        print(f"[NCA NoveltyDetector] Index registered: {self._index_size} vectors")

    def forward(self, request_emb: torch.Tensor) -> torch.Tensor:
        """
        Compute novelty score for a batch of request embeddings.

        Args:
            request_emb: Request hidden states, shape (B, C) or (B, T, C).
                         If 3D, mean-pooled to (B, C) first.

        Returns:
            Novelty scores, shape (B,), in [0, 1].
        """
        if request_emb.dim() == 3:
            request_emb = request_emb.mean(dim=1)   # (B, C)

        request_norm = F.normalize(request_emb.float(), dim=-1)   # (B, C)

        # If no index is registered, assume maximum novelty
        if self._index_size == 0:
            return torch.ones(request_emb.size(0), device=request_emb.device)

        # Cosine similarity to all index vectors: (B, N_ref)
        sim = request_norm @ self._index.T.to(request_norm.device)

        # Take top-k similarities as the density estimate
        k       = min(self.k, self._index_size)
        top_k   = sim.topk(k, dim=-1).values   # (B, k)
        density = top_k.mean(dim=-1)            # (B,)

        # Calibrated novelty score
        N = 1.0 - torch.sigmoid(self.w_nd * density + self.b_nd)
        return N.clamp(0.0, 1.0)

    def is_novel(self, request_emb: torch.Tensor) -> torch.Tensor:
        """
        Boolean mask: True where N >= novelty_threshold (Creative Mode needed).

        Args:
            request_emb: Shape (B, C) or (B, T, C).

        Returns:
            Boolean tensor, shape (B,).
        """
        return self.forward(request_emb) >= self.config.novelty_threshold
