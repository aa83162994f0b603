"""
kolmgformers/nca/ee.py  v2.0.6
================================
NCA — Module 3: EvaluationEngine (Executive Control Network analog)

Scores candidate ideas on two dimensions:
  - Coherence: is the idea internally consistent?
  - Usefulness: does it address the request, and is it genuinely novel?

Score(idea) = w_c * Coherence(idea) + w_u * Usefulness(idea, request)
Usefulness  = sim(idea, request) + mu * (1 - max_sim(idea, known_solutions))

When no candidate meets theta_E, the EE emits a failure signal encoding
which dimension failed, used to constrain the next FAE round.
"""

from __future__ import annotations
from dataclasses import dataclass
from typing import List, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

from kolmgformers.nca.novelty import NCAConfig


__all__ = [
    "EvaluationResult",
    "FailureSignal",
    "EvaluationEngine",
]


@dataclass
class EvaluationResult:
    """Score information for a single candidate idea."""
    coherence:   float
    usefulness:  float
    total_score: float
    promoted:    bool


@dataclass
class FailureSignal:
    """
    Feedback from EE to FAE when no candidate is promoted.

    Used to steer the next generation round away from the failure mode.

    Attributes:
        mode:             'coherence' | 'usefulness' | 'novelty'
        constraint_dir:   Unit vector in latent space to steer away from.
    """
    mode:           str
    constraint_dir: Optional[torch.Tensor] = None


class EvaluationEngine(nn.Module):
    """
    Evaluation Engine — Executive Control Network analog.

    Scores latent idea vectors on coherence and usefulness.
    Returns the best candidate and a failure signal if needed.

    Architecture:
      - CoherenceHead: 2-layer MLP on (idea_emb, C) → scalar [0,1]
      - UsefulnessHead: computes sim(idea, request) + novelty bonus
      - Diversity filter: deduplicates near-identical candidates

    Args:
        hidden_size: Model hidden dimension C.
        config:      NCAConfig.
    """

    def __init__(self, hidden_size: int, config: NCAConfig):
        super().__init__()
        self.config      = config
        self.hidden_size = hidden_size

        # Coherence scorer: maps a latent idea vector to P(coherent)
        self.coherence_head = nn.Sequential(
            nn.Linear(hidden_size, hidden_size // 2),
            nn.SiLU(),
            nn.Linear(hidden_size // 2, 1),
            nn.Sigmoid(),
        )

        # Usefulness scorer weight (cosine sim already normalized)
        # mu controls the novelty bonus strength
        self.mu = config.mu_novelty_bonus

        # Scoring weights
        self.w_coherence   = nn.Parameter(torch.tensor(0.5))
        self.w_usefulness  = nn.Parameter(torch.tensor(0.5))

        # Known solution store for novelty bonus
        self.register_buffer("_known_solutions", torch.zeros(0, hidden_size))

        self._init_weights()

    def _init_weights(self) -> None:
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def register_known_solutions(self, solutions: torch.Tensor) -> None:
        """
        Register known solution embeddings for novelty bonus computation.

        Args:
            solutions: Tensor (N_s, C) of known/existing solution embeddings.
        """
        self._known_solutions = F.normalize(solutions.float(), dim=-1).detach()

    def forward(
        self,
        candidates:  torch.Tensor,
        request_emb: torch.Tensor,
    ) -> Tuple[Optional[torch.Tensor], List[EvaluationResult], Optional[FailureSignal]]:
        """
        Score candidates and return the best one, or a failure signal.

        Args:
            candidates:  Latent idea vectors, shape (B, K, C) or (B, C).
                         If (B, C), treated as a single candidate (K=1).
            request_emb: Request representation, shape (B, C).

        Returns:
            Tuple of:
              - best_candidate: shape (B, C) if promoted, else None.
              - results: List of EvaluationResult for each candidate.
              - failure: FailureSignal if no candidate promoted, else None.
        """
        if candidates.dim() == 2:
            candidates = candidates.unsqueeze(1)   # (B, 1, C)

        B, K, C = candidates.shape

        all_results: List[EvaluationResult] = []
        best_score  = -float("inf")
        best_idx    = 0

        scores = torch.zeros(B, K, device=candidates.device)

        for k in range(K):
            idea = candidates[:, k, :]   # (B, C)

            coherence  = self._score_coherence(idea)    # (B,)
            usefulness = self._score_usefulness(idea, request_emb)  # (B,)

            w_c = torch.sigmoid(self.w_coherence)
            w_u = torch.sigmoid(self.w_usefulness)
            total = w_c * coherence + w_u * usefulness   # (B,)
            scores[:, k] = total

            # For reporting (use batch mean for simplicity)
            all_results.append(EvaluationResult(
                coherence   = coherence.mean().item(),
                usefulness  = usefulness.mean().item(),
                total_score = total.mean().item(),
                promoted    = False,
            ))

            mean_score = total.mean().item()
            if mean_score > best_score:
                best_score = mean_score
                best_idx   = k

        # Apply diversity filter: if best K are too similar, keep only the best
        candidates = self._diversity_filter(candidates)

        # Promotion decision
        theta_E = self.config.eval_threshold
        if best_score >= theta_E:
            all_results[best_idx].promoted = True
            best_candidate = candidates[:, best_idx, :]   # (B, C)
            return best_candidate, all_results, None
        else:
            # Generate failure signal
            failure = self._failure_signal(
                all_results, candidates[:, best_idx, :], request_emb
            )
            return None, all_results, failure

    # ── Scoring helpers ───────────────────────────────────────────────────────

    def _score_coherence(self, idea: torch.Tensor) -> torch.Tensor:
        """Coherence: P(internally consistent | idea latent vector). Shape (B,)."""
        return self.coherence_head(idea).squeeze(-1)

    def _score_usefulness(
        self,
        idea:        torch.Tensor,
        request_emb: torch.Tensor,
    ) -> torch.Tensor:
        """
        Usefulness = sim(idea, request) + mu * (1 - max_sim(idea, known_solutions))

        The novelty bonus rewards ideas that address the request but differ
        from known existing solutions.
        """
        idea_norm    = F.normalize(idea.float(),        dim=-1)
        request_norm = F.normalize(request_emb.float(), dim=-1)

        # Cosine similarity to request
        sim_request = (idea_norm * request_norm).sum(dim=-1)   # (B,)

        # Novelty bonus: 1 - max similarity to any known solution
        if self._known_solutions.size(0) > 0:
            known    = self._known_solutions.to(idea.device)
            sim_mat  = idea_norm @ known.T              # (B, N_s)
            max_sim  = sim_mat.max(dim=-1).values        # (B,)
            novelty  = 1.0 - max_sim
        else:
            novelty  = torch.ones(idea.size(0), device=idea.device)

        return (sim_request + self.mu * novelty).clamp(0.0, 1.0)

    def _diversity_filter(self, candidates: torch.Tensor) -> torch.Tensor:
        """
        Remove near-duplicate candidates by retaining the highest-scoring
        representative from each semantic cluster.

        Simple greedy: if sim(i, j) > 0.95, drop j (lower score assumed
        since candidates are passed in order of generation, not rank).
        """
        B, K, C = candidates.shape
        normed   = F.normalize(candidates.float(), dim=-1)
        keep     = list(range(K))
        dropped  = set()

        for i in range(K):
            if i in dropped:
                continue
            for j in range(i + 1, K):
                if j in dropped:
                    continue
                sim = (normed[:, i, :] * normed[:, j, :]).sum(dim=-1).mean().item()
                if sim > 0.95:
                    dropped.add(j)

        # If we drop all, keep at least 1
        keep = [k for k in keep if k not in dropped] or [0]
        # Rebuild with only kept candidates (pad with zeros if needed)
        filtered = candidates[:, keep, :]
        if filtered.size(1) < K:
            pad = torch.zeros(B, K - filtered.size(1), C, device=candidates.device)
            filtered = torch.cat([filtered, pad], dim=1)
        return filtered

    def _failure_signal(
        self,
        results:     List[EvaluationResult],
        best_idea:   torch.Tensor,
        request_emb: torch.Tensor,
    ) -> FailureSignal:
        """
        Determine failure mode and encode it as a constraint direction.

        Failure modes:
          - coherence:  best idea's coherence < 0.4
          - usefulness: best idea's usefulness < 0.4
          - novelty:    both scores ok but total < theta_E (too similar to known)
        """
        best = max(results, key=lambda r: r.total_score)

        if best.coherence < 0.4:
            # Steer away from the current latent region (low coherence)
            constraint = F.normalize(best_idea.mean(dim=0, keepdim=True), dim=-1)
            return FailureSignal(mode="coherence", constraint_dir=constraint)
        elif best.usefulness < 0.4:
            # Steer toward the request (low usefulness = drifted too far)
            constraint = -F.normalize(request_emb.mean(dim=0, keepdim=True), dim=-1)
            return FailureSignal(mode="usefulness", constraint_dir=constraint)
        else:
            # Novelty failure: push further from known solutions
            constraint = F.normalize(best_idea.mean(dim=0, keepdim=True), dim=-1)
            return FailureSignal(mode="novelty", constraint_dir=constraint)
