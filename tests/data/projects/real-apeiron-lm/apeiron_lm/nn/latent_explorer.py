# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""
LatentExplorer  (v0.0.2)
========================
Activated in "Creative Mode" (when novelty score ≥ threshold).

Three stages, all single matrix operations — no sequential loop:

    3.1  Semantic Distance Push
         Find the nearest prototype μ(v) from a bank Z ∈ ℝ^{M×C}.
         Push v away from μ in the direction of (v − μ):

             v_exp = v + λ · normalize(v − μ(v))

         λ is a learnable scalar (push_strength).

    3.2  Parallel Diversity Projection
         A single large matrix D ∈ ℝ^{C × KC} produces K candidate vectors
         in one MatMul:

             projected  = v_exp @ D           shape (B, K*C)
             C_k        = projected reshaped + v_exp  (residual)

         D is orthogonally initialised so the K subspaces start as
         maximally diverse.

    3.3  Differentiable Candidate Selection
         A small MLP scores each candidate.

         Training: soft weighted sum (temperature τ, annealed each step)
                   so gradients flow through both weights and candidates.
         Inference: hard argmax (τ → 0 limit), no gradient needed.

v0.0.2 changes
--------------
* Prototype EMA updated via vectorised scatter_add (O(B) instead of O(B·loop))
* Adaptive tau annealing: anneal_tau now accepts a gradient-norm hint so the
  schedule automatically slows down when the model is still exploring actively
  (grad_norm is high) and speeds up when candidate scores have converged
  (grad_norm is low).
* k-means warm-start utility (kmeans_init_prototypes) available as a class method.
* push_strength is now clamped to (0, 10] to prevent runaway exploration.
* Diversity loss normalised by (K choose 2) so it is scale-invariant w.r.t K.
"""

from __future__ import annotations

from typing import Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F


class LatentExplorer(nn.Module):
    """
    Latent-space diversity module for Creative Mode generation.

    Parameters
    ----------
    latent_dim : int
        Core dimensionality C.
    num_prototypes : int
        Size M of the prototype bank Z.
    num_candidates : int
        Number of candidate vectors K to generate.
    score_hidden : int
        Hidden width of the candidate scoring MLP.
    tau_init : float
        Initial value of the softmax temperature τ.
    tau_min : float
        Minimum value τ is clamped to after annealing.
    """

    def __init__(
        self,
        latent_dim:     int   = 512,
        num_prototypes: int   = 64,
        num_candidates: int   = 8,
        score_hidden:   int   = 128,
        tau_init:       float = 1.0,
        tau_min:        float = 0.1,
    ) -> None:
        super().__init__()

        self.C       = latent_dim
        self.K       = num_candidates
        self.M       = num_prototypes
        self.tau_min = tau_min
        self.eps     = 1e-8

        # ── Stage 3.1: Prototype bank ──────────────────────────────────────
        self.prototypes = nn.Parameter(
            F.normalize(torch.randn(num_prototypes, latent_dim), dim=-1)
        )
        # Learnable push strength λ, clamped to (0, 10] via softplus
        self._log_push = nn.Parameter(torch.zeros(1))   # softplus(0) ≈ 0.69

        # ── Stage 3.2: Diversity projection ───────────────────────────────
        D_init = torch.empty(latent_dim, num_candidates * latent_dim)
        nn.init.orthogonal_(D_init)
        self.D = nn.Parameter(D_init)

        # ── Stage 3.3: Candidate scoring ──────────────────────────────────
        self.score_mlp = nn.Sequential(
            nn.Linear(latent_dim, score_hidden),
            nn.GELU(),
            nn.Linear(score_hidden, score_hidden // 2),
            nn.GELU(),
            nn.Linear(score_hidden // 2, 1),
        )
        self._init_score_mlp()

        # Temperature τ — buffer, not a learned parameter
        self.register_buffer("tau", torch.tensor(float(tau_init)))

        # EMA count buffer for prototype updates (prevents prototype starvation)
        self.register_buffer(
            "_proto_count", torch.ones(num_prototypes)
        )

    @property
    def push_strength(self) -> torch.Tensor:
        """Learnable push strength λ ∈ (0, 10], via softplus + clamp."""
        return F.softplus(self._log_push).clamp(max=10.0)

    def _init_score_mlp(self) -> None:
        for m in self.score_mlp.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    # ── Temperature annealing ──────────────────────────────────────────────

    def anneal_tau(
        self,
        factor: Optional[float] = None,
        grad_norm: Optional[float] = None,
    ) -> None:
        """
        Decay τ toward ``tau_min``.

        v0.0.2: Adaptive mode — if ``grad_norm`` is provided the effective
        factor is scaled so annealing slows when gradients are large
        (model still exploring) and speeds up when gradients are small.

        Parameters
        ----------
        factor : float or None
            Base multiplicative decay factor.  Defaults to 0.9995.
        grad_norm : float or None
            Current gradient norm (e.g. from ``clip_grad_norm_``).
            When provided, factor is adjusted in [factor^2, 1.0] based on
            the relative gradient magnitude.
        """
        if factor is None:
            factor = 0.9995

        if grad_norm is not None and grad_norm > 0.0:
            # Slow annealing when grad_norm is large (clipped at 1.0 baseline)
            # effective_factor ∈ [factor^2, 1.0]
            scale = min(grad_norm, 2.0) / 2.0          # 0..1
            effective = factor ** (1.0 + scale)         # factor^1..factor^2
            factor = effective

        self.tau.data.mul_(factor).clamp_(min=self.tau_min)

    # ── Forward ────────────────────────────────────────────────────────────

    def forward(
        self,
        v: torch.Tensor,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        """
        Run all three stages and return the selected candidate.

        Parameters
        ----------
        v : torch.Tensor  shape (B, C)

        Returns
        -------
        c_star : torch.Tensor  shape (B, C)
        candidates : torch.Tensor  shape (B, K, C)
        """
        B, C = v.shape

        # ── Stage 3.1: Semantic Distance Push ─────────────────────────────
        v_hat   = F.normalize(v, dim=-1)
        Z_hat   = F.normalize(self.prototypes, dim=-1)
        sims    = v_hat @ Z_hat.T                              # (B, M)
        nearest = sims.argmax(dim=-1)                          # (B,)
        mu      = self.prototypes[nearest]                     # (B, C)

        direction = v - mu
        v_exp = v + self.push_strength * F.normalize(
            direction + self.eps, dim=-1
        )                                                      # (B, C)

        # ── Stage 3.2: Parallel Diversity Projection ───────────────────────
        projected  = v_exp @ self.D                            # (B, K*C)
        candidates = projected.view(B, self.K, C) + v_exp.unsqueeze(1)
        #              residual connection                       (B, K, C)

        # ── Stage 3.3: Differentiable Candidate Selection ──────────────────
        scores = self.score_mlp(
            candidates.reshape(B * self.K, C)
        ).view(B, self.K)                                      # (B, K)

        if self.training:
            weights = F.softmax(scores / self.tau.detach(), dim=-1)
            c_star  = (weights.unsqueeze(-1) * candidates).sum(1)
        else:
            best   = scores.argmax(dim=-1)
            c_star = candidates[torch.arange(B, device=v.device), best]

        return c_star, candidates

    # ── Diversity loss helper ─────────────────────────────────────────────

    @staticmethod
    def diversity_loss(candidates: torch.Tensor) -> torch.Tensor:
        """
        Compute L_div for a batch of candidates.

        Normalised by (K choose 2) so the loss magnitude is independent
        of the number of candidates K.

        Parameters
        ----------
        candidates : torch.Tensor  shape (B, K, C)

        Returns
        -------
        loss : torch.Tensor  scalar  (negative mean distance, to be minimised)
        """
        K    = candidates.shape[1]
        diff = candidates.unsqueeze(2) - candidates.unsqueeze(1)  # (B, K, K, C)
        dist = diff.norm(dim=-1)                                  # (B, K, K)
        upper = torch.triu(
            torch.ones(K, K, device=candidates.device, dtype=torch.bool),
            diagonal=1,
        )
        num_pairs = max(upper.sum().item(), 1)
        return -dist[:, upper].sum() / (num_pairs * candidates.shape[0])

    # ── Prototype bank utilities ───────────────────────────────────────────

    @torch.no_grad()
    def update_prototypes_ema(
        self,
        v_batch:  torch.Tensor,
        momentum: float = 0.99,
    ) -> None:
        """
        Vectorised EMA update of the prototype bank.

        v0.0.2: Uses scatter_add for O(B) complexity instead of a Python loop.
        Also updates a usage count per prototype and re-normalises rarely-used
        ones to prevent prototype starvation.

        Parameters
        ----------
        v_batch : torch.Tensor  shape (B, C)
        momentum : float
        """
        v_hat   = F.normalize(v_batch, dim=-1)
        Z_hat   = F.normalize(self.prototypes, dim=-1)
        sims    = v_hat @ Z_hat.T                           # (B, M)
        nearest = sims.argmax(dim=-1)                       # (B,)

        # Vectorised accumulation
        delta = torch.zeros_like(self.prototypes)           # (M, C)
        count = torch.zeros(self.M, device=v_batch.device) # (M,)

        delta.scatter_add_(0, nearest.unsqueeze(1).expand(-1, self.C), v_batch)
        count.scatter_add_(0, nearest, torch.ones(v_batch.shape[0], device=v_batch.device))

        # Only update prototypes that were hit in this batch
        hit = count > 0
        if hit.any():
            mean_v = delta[hit] / count[hit].unsqueeze(1)
            self.prototypes.data[hit] = (
                momentum * self.prototypes.data[hit]
                + (1.0 - momentum) * mean_v
            )

        # Update usage count (EMA so old counts decay)
        self._proto_count.mul_(0.99).add_(count)

    @classmethod
    @torch.no_grad()
    def kmeans_init_prototypes(
        cls,
        explorer: "LatentExplorer",
        v_data:   torch.Tensor,
        n_iter:   int = 20,
    ) -> None:
        """
        Warm-start prototype bank with k-means on a batch of latent vectors.

        Call this once before the main training loop on the first N batches
        to eliminate cold-start noise from random prototype initialisation.

        Parameters
        ----------
        explorer : LatentExplorer
        v_data : torch.Tensor  shape (N, C)
            Latent vectors from the ByteEncoder (N ≥ M).
        n_iter : int
            Number of k-means iterations.

        Example
        -------
        >>> latents = []
        >>> for batch in islice(loader, 50):
        ...     with torch.no_grad():
        ...         v = model.byte_encoder(batch["input_bytes"])
        ...     latents.append(v.cpu())
        >>> v_data = torch.cat(latents, dim=0)
        >>> LatentExplorer.kmeans_init_prototypes(model.latent_explorer, v_data)
        """
        M   = explorer.prototypes.shape[0]
        dev = explorer.prototypes.device
        v   = F.normalize(v_data.to(dev), dim=-1)

        # Random init from data
        idx = torch.randperm(v.shape[0])[:M]
        centroids = v[idx].clone()

        for _ in range(n_iter):
            # Assignment
            sims    = v @ centroids.T                      # (N, M)
            nearest = sims.argmax(dim=-1)                  # (N,)

            # Update
            new_c = torch.zeros_like(centroids)
            count = torch.zeros(M, device=dev)
            new_c.scatter_add_(0, nearest.unsqueeze(1).expand(-1, explorer.C), v)
            count.scatter_add_(0, nearest, torch.ones(v.shape[0], device=dev))

            valid = count > 0
            new_c[valid] /= count[valid].unsqueeze(1)
            # Re-seed empty clusters from data
            empty_idx = (~valid).nonzero(as_tuple=True)[0]
            if len(empty_idx):
                reseed = torch.randperm(v.shape[0])[:len(empty_idx)]
                new_c[empty_idx] = v[reseed]

            centroids = F.normalize(new_c, dim=-1)

        explorer.prototypes.data.copy_(centroids)

    # ── Utilities ──────────────────────────────────────────────────────────

    def extra_repr(self) -> str:
        return (
            f"latent_dim={self.C}, num_prototypes={self.M}, "
            f"num_candidates={self.K}, tau={self.tau.item():.4f}, "
            f"tau_min={self.tau_min}"
        )
