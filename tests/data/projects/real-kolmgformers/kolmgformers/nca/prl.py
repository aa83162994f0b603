"""
kolmgformers/nca/prl.py  v2.0.6
================================
NCA v2 — Module 2.5: PreverbalReasoningLayer (Parietal Cortex analog)

NEW in NCA v2. Inspired by Evelina Fedorenko's fMRI research: the brain's
language regions stay silent during complex reasoning. The parietal cortex,
visual cortex, and limbic system do the actual cognitive work. Language is
only activated when it is time to communicate.

The PRL receives K candidate latent vectors from the FAE and refines them
through three token-free operations:
  1. Relational reasoning: pairwise relationships between candidates.
  2. Structural composition: compatible candidates merged into composites.
  3. Constraint satisfaction: eliminate latent regions corresponding to
     impossible ideas (modeled as directional projections).

Output: a single refined latent vector (still pre-verbal).
Cost: O(K * d²) — independent of sequence length.
"""

from __future__ import annotations
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

from kolmgformers.nca.novelty import NCAConfig


__all__ = ["PreverbalReasoningLayer"]


class PreverbalReasoningLayer(nn.Module):
    """
    Pre-verbal Reasoning Layer — Parietal Cortex analog.

    Receives K latent candidate vectors from the FAE and outputs a single
    refined latent vector through token-free relational reasoning.

    Architecture (all matrix ops, no attention, no token generation):
      - Pairwise relation MLP: computes K*(K-1)/2 relation vectors
      - Composition layer: merges candidates weighted by their pairwise relations
      - Constraint projection: removes directions corresponding to hard constraints
      - Output MLP: projects to final hidden dim

    Args:
        hidden_size: Model hidden dimension C.
        config:      NCAConfig.
    """

    def __init__(self, hidden_size: int, config: NCAConfig):
        super().__init__()
        self.config      = config
        self.hidden_size = hidden_size
        self.K           = config.candidates_per_round
        self.depth       = config.prl_depth

        # Pairwise relation computation: concat(v_i, v_j) → scalar score
        self.relation_mlp = nn.Sequential(
            nn.Linear(hidden_size * 2, hidden_size),
            nn.SiLU(),
            nn.Linear(hidden_size, 1),
        )

        # Composition: weighted sum → refined vector
        # Input: concatenation of all K candidates, output: C
        self.composition = nn.Linear(hidden_size * self.K, hidden_size, bias=False)

        # Output refinement MLP (prl_depth layers)
        layers = []
        for i in range(self.depth):
            layers.append(nn.Linear(hidden_size, hidden_size))
            if i < self.depth - 1:
                layers.append(nn.SiLU())
        self.output_mlp = nn.Sequential(*layers)

        self.norm = nn.LayerNorm(hidden_size)

        # Hard constraint vectors (registered externally if domain knowledge available)
        # Each constraint is a direction in latent space to project out of candidates.
        self.register_buffer("_constraint_dirs", torch.zeros(0, hidden_size))

        self._init_weights()

    def _init_weights(self) -> None:
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def register_constraints(self, constraint_dirs: torch.Tensor) -> None:
        """
        Register hard constraint directions.

        These represent directions in latent space that correspond to
        impossible or undesirable ideas (physics violations, logical
        contradictions). The PRL projects candidates away from these.

        Args:
            constraint_dirs: Tensor (N_c, C) of constraint directions (unit vectors).
        """
        self._constraint_dirs = F.normalize(constraint_dirs.float(), dim=-1).detach()

    def forward(
        self,
        candidates: torch.Tensor,
    ) -> torch.Tensor:
        """
        Refine K candidate latent vectors into a single pre-verbal idea vector.

        Args:
            candidates: FAE output, shape (B, K, C).

        Returns:
            Refined latent vector, shape (B, C). Still token-free.
        """
        B, K, C = candidates.shape

        # ── Relational reasoning: pairwise compatibility scores ───────────────
        # Compute scores for all K*(K-1)/2 pairs
        rel_scores = torch.zeros(B, K, device=candidates.device)
        pair_count = torch.zeros(B, K, device=candidates.device)

        for i in range(K):
            for j in range(i + 1, K):
                pair_input = torch.cat([candidates[:, i, :], candidates[:, j, :]], dim=-1)
                score      = self.relation_mlp(pair_input).squeeze(-1)   # (B,)
                rel_scores[:, i] += score
                rel_scores[:, j] += score
                pair_count[:, i] += 1
                pair_count[:, j] += 1

        # Normalize: average relation score per candidate
        pair_count = pair_count.clamp(min=1)
        rel_weights = torch.softmax(rel_scores / pair_count, dim=-1)   # (B, K)

        # ── Structural composition: weighted concatenation → C ────────────────
        # Concat all K candidates (B, K*C) and project to C
        # But first weight them by their relational scores
        weighted_candidates = candidates * rel_weights.unsqueeze(-1)     # (B, K, C)
        flat                = weighted_candidates.reshape(B, K * C)      # (B, K*C)
        composed            = self.composition(flat)                      # (B, C)

        # ── Constraint satisfaction: project out constraint directions ─────────
        if self.config.prl_use_constraints and self._constraint_dirs.size(0) > 0:
            composed = self._apply_constraints(composed)

        # ── Output refinement ─────────────────────────────────────────────────
        refined = self.output_mlp(composed)
        refined = self.norm(refined + composed)   # residual

        return refined   # (B, C)

    def _apply_constraints(self, v: torch.Tensor) -> torch.Tensor:
        """
        Project v away from each constraint direction.

        For each constraint direction c_i (unit vector), removes the component
        of v along c_i: v = v - (v · c_i) * c_i

        This eliminates latent regions corresponding to impossible concepts.
        """
        dirs = self._constraint_dirs.to(v.device)   # (N_c, C)
        for i in range(dirs.size(0)):
            c_i  = dirs[i]                             # (C,)
            proj = (v * c_i).sum(dim=-1, keepdim=True) * c_i   # (B, C)
            v    = v - proj
        return v
