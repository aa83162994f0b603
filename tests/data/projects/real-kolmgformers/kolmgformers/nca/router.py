"""
kolmgformers/nca/router.py  v2.0.6
===================================
NCA — CreativeModeRouter

Orchestrates the full NCA pipeline:
  ND → (if novel) → FAE → PRL → EE → (if promoted) → output
                              ↑                    |
                              └────────────────────┘ (failure → next round)

Implements the dynamic DMN/ECN switching loop from the paper.
Max `max_rounds` iterations before falling back to best-so-far.

Also handles the DS-PDLM integration: if the model has a dual-stream
U-Stream, the ND uses U-Stream hidden states instead of G-Stream,
eliminating redundant computation (from the OMGFormers Family Index).
"""

from __future__ import annotations
from dataclasses import dataclass, field
from typing import Any, List, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

from kolmgformers.nca.novelty import NCAConfig, NoveltyDetector
from kolmgformers.nca.fae     import FreeAssociationEngine
from kolmgformers.nca.prl     import PreverbalReasoningLayer
from kolmgformers.nca.ee      import EvaluationEngine, EvaluationResult, FailureSignal


__all__ = [
    "CreativeOutput",
    "CreativeModeRouter",
]


@dataclass
class CreativeOutput:
    """
    Output from a Creative Mode generation pass.

    Attributes:
        latent_vector:    Refined pre-verbal idea vector, shape (B, C).
                          Ready to be fed into the G-Stream LM head for
                          token-level verbalization.
        novelty_score:    N score that triggered Creative Mode.
        rounds_used:      Number of DMN/ECN loop iterations.
        best_score:       Final EE total score of the promoted candidate.
        was_creative:     False if standard path was taken (N < theta_N).
        failure_modes:    List of failure modes encountered during loop.
        uncertainty:      True if max_rounds reached without promotion.
    """
    latent_vector:  torch.Tensor
    novelty_score:  float              = 0.0
    rounds_used:    int                = 0
    best_score:     float              = 0.0
    was_creative:   bool               = False
    failure_modes:  List[str]          = field(default_factory=list)
    uncertainty:    bool               = False


class CreativeModeRouter(nn.Module):
    """
    Orchestrates the NCA pipeline with the DMN/ECN switching loop.

    Usage::

        router = CreativeModeRouter(hidden_size=768, config=NCAConfig(enabled=True))
        output = router(request_emb, standard_hidden)

        if output.was_creative:
            # verbalize output.latent_vector with LM head
            logits = lm_head(output.latent_vector.unsqueeze(1))
        else:
            # use standard_hidden directly
            logits = lm_head(standard_hidden)

    Args:
        hidden_size: Model hidden dimension C.
        config:      NCAConfig.
    """

    def __init__(self, hidden_size: int, config: NCAConfig):
        super().__init__()
        self.config      = config
        self.hidden_size = hidden_size

        self.novelty_detector = NoveltyDetector(hidden_size, config)
        self.fae              = FreeAssociationEngine(hidden_size, config)
        self.prl              = PreverbalReasoningLayer(hidden_size, config)
        self.ee               = EvaluationEngine(hidden_size, config)

        # Verbalization projection: pre-verbal latent → token-space hidden
        # (same dim, but specialized weights for the transition)
        self.verbalization_proj = nn.Linear(hidden_size, hidden_size, bias=False)
        nn.init.eye_(self.verbalization_proj.weight)   # start as identity

    def forward(
        self,
        request_emb:     torch.Tensor,
        standard_hidden: Optional[torch.Tensor] = None,
    ) -> CreativeOutput:
        """
        Route a request through Creative Mode (if needed) or standard path.

        Args:
            request_emb:     Mean-pooled request hidden state, shape (B, C).
                             If DS-PDLM is active, pass U-Stream mean pooled state.
            standard_hidden: Standard G-Stream output for fast-path, shape (B, C).
                             If None, the latent vector is returned raw.

        Returns:
            CreativeOutput with latent vector and metadata.
        """
        if not self.config.enabled:
            h = standard_hidden if standard_hidden is not None else request_emb
            return CreativeOutput(
                latent_vector = h,
                was_creative  = False,
            )

        # ── Step 1: Novelty Detection ──────────────────────────────────────────
        N = self.novelty_detector(request_emb)   # (B,)
        mean_N = N.mean().item()

        if mean_N < self.config.novelty_threshold:
            h = standard_hidden if standard_hidden is not None else request_emb
            return CreativeOutput(
                latent_vector = h,
                novelty_score = mean_N,
                was_creative  = False,
            )

        # ── Creative Mode: DMN/ECN switching loop ──────────────────────────────
        # Compute kNN centroid for FAE (using ND's index if available)
        knn_centroid = self._knn_centroid(request_emb)

        best_candidate    = None
        best_score        = -float("inf")
        failure_modes: List[str] = []
        constraint_dir    = None

        for round_idx in range(self.config.max_rounds):
            # ── DMN Phase: FAE generates K candidates ────────────────────────
            candidates = self.fae(
                request_emb,
                knn_centroid  = knn_centroid,
                constraint    = constraint_dir,
            )   # (B, K, C)

            # ── PRL: token-free relational reasoning ──────────────────────────
            refined = self.prl(candidates)   # (B, C)

            # ── ECN Phase: EE scores candidates ───────────────────────────────
            promoted, results, failure = self.ee(
                refined.unsqueeze(1),   # treat single refined vector as K=1
                request_emb,
            )

            # Track best seen so far
            if results:
                round_best = max(results, key=lambda r: r.total_score)
                if round_best.total_score > best_score:
                    best_score      = round_best.total_score
                    best_candidate  = refined

            if promoted is not None:
                # Successful Creative Mode
                verbalized = self.verbalization_proj(promoted)
                return CreativeOutput(
                    latent_vector = verbalized,
                    novelty_score = mean_N,
                    rounds_used   = round_idx + 1,
                    best_score    = best_score,
                    was_creative  = True,
                    failure_modes = failure_modes,
                    uncertainty   = False,
                )

            # Failure: extract constraint and continue
            if failure is not None:
                failure_modes.append(failure.mode)
                constraint_dir = failure.constraint_dir

        # ── Max rounds reached: return best candidate with uncertainty flag ─────
        if best_candidate is None:
            best_candidate = request_emb   # last resort fallback

        verbalized = self.verbalization_proj(best_candidate)
        return CreativeOutput(
            latent_vector = verbalized,
            novelty_score = mean_N,
            rounds_used   = self.config.max_rounds,
            best_score    = best_score,
            was_creative  = True,
            failure_modes = failure_modes,
            uncertainty   = True,
        )

    def _knn_centroid(self, request_emb: torch.Tensor) -> Optional[torch.Tensor]:
        """Compute kNN centroid from the ND's index (if populated)."""
        nd    = self.novelty_detector
        if nd._index_size == 0:
            return None
        idx   = nd._index.to(request_emb.device)
        req_n = F.normalize(request_emb.float(), dim=-1)
        sim   = req_n @ idx.T                            # (B, N_ref)
        k     = min(nd.k, nd._index_size)
        top_k_idx = sim.topk(k, dim=-1).indices         # (B, k)
        # centroid: mean of top-k neighbor vectors
        neighbors = idx[top_k_idx]                       # (B, k, C)
        centroid  = neighbors.mean(dim=1)                # (B, C)
        return centroid.to(request_emb.dtype)
