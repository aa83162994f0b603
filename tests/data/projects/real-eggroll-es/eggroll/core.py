"""
EGGROLL Core — Low-Rank Evolution Strategies in PyTorch

Implements the key insight from "Evolution Strategies at the Hyperscale":
Instead of full-rank Gaussian perturbations, use rank-r factored perturbations
(A @ B.T) that achieve O(1/r) approximation error while enabling efficient
batched matrix multiplications on GPUs.
"""

import torch
import torch.nn as nn
from dataclasses import dataclass, field
from typing import Optional, List, Tuple, Callable, Dict, Any
import math


@dataclass
class EggrollConfig:
    """Configuration for EGGROLL evolution."""
    # Population size (number of mutations per generation)
    population_size: int = 256
    # Rank of low-rank perturbations (higher = better approximation, more memory)
    rank: int = 8
    # Noise standard deviation (sigma)
    sigma: float = 0.01
    # Learning rate for parameter updates
    lr: float = 0.001
    # Number of evolution generations
    generations: int = 100
    # Use antithetic sampling (mirror perturbations) — halves variance
    antithetic: bool = True
    # Max tokens per evaluation (for text models)
    max_tokens: int = 128
    # Device
    device: str = "cuda" if torch.cuda.is_available() else "cpu"
    # Random seed
    seed: int = 42
    # Fitness shaping: "centered_rank", "raw", "normalized"
    fitness_shaping: str = "centered_rank"
    # Weight decay (L2 regularization via parameter magnitude penalty)
    weight_decay: float = 0.0
    # Gradient estimation: "forward_fd" (forward finite differences) or "antithetic"
    grad_estimation: str = "antithetic"
    # Number of top-k elite members to keep (0 = use all)
    elite_k: int = 0
    # LoRA-style: only perturb specific layers matching these patterns
    target_modules: Optional[List[str]] = None


class LowRankNoiser:
    """
    Generates low-rank perturbations for model parameters.

    Instead of sampling a full D-dimensional Gaussian for each population member,
    we sample two matrices A (D x r) and B (D x r) and form the perturbation as
    A @ B.T / sqrt(r). This gives:
    - Memory: O(2Dr) instead of O(D^2) per perturbation
    - Compute: Efficient batched matmuls on GPU
    - Quality: O(1/r) approximation error to full-rank ES
    """

    def __init__(self, param_shapes: Dict[str, torch.Size], config: EggrollConfig):
        self.config = config
        self.param_shapes = param_shapes
        self.param_sizes = {name: math.prod(shape) for name, shape in param_shapes.items()}
        self.total_params = sum(self.param_sizes.values())
        self.rng = torch.Generator(device=config.device)
        self.rng.manual_seed(config.seed)

    def sample_perturbations(self, n: int) -> List[Dict[str, torch.Tensor]]:
        """
        Sample n low-rank perturbations for all target parameters.

        Returns list of dicts mapping param_name -> perturbation tensor (same shape as param).
        If antithetic=True, returns 2n perturbations (n positive + n mirrored).
        """
        perturbations = []
        r = self.config.rank
        sigma = self.config.sigma
        device = self.config.device

        for i in range(n):
            pert = {}
            for name, shape in self.param_shapes.items():
                d = self.param_sizes[name]
                # Sample two factor matrices
                A = torch.randn(d, r, device=device, generator=self.rng) / math.sqrt(r)
                B = torch.randn(d, r, device=device, generator=self.rng) / math.sqrt(r)
                # Low-rank perturbation: sum of outer products = A @ B.T summed to a vector
                # For parameter vectors, we sum across the rank dimension
                noise = (A * B).sum(dim=1) * sigma
                pert[name] = noise.reshape(shape)

            perturbations.append(pert)

            if self.config.antithetic:
                # Mirror perturbation (negated)
                mirror = {name: -p for name, p in pert.items()}
                perturbations.append(mirror)

        return perturbations

    def sample_perturbations_batched(self, n: int) -> Tuple[Dict[str, torch.Tensor], Dict[str, torch.Tensor]]:
        """
        Batched version: returns (A_factors, B_factors) dicts for efficient computation.
        Each value is a (n, D, r) tensor.
        """
        r = self.config.rank
        sigma = self.config.sigma
        device = self.config.device

        A_factors = {}
        B_factors = {}

        for name, shape in self.param_shapes.items():
            d = self.param_sizes[name]
            A = torch.randn(n, d, r, device=device, generator=self.rng) * (sigma / math.sqrt(r))
            B = torch.randn(n, d, r, device=device, generator=self.rng) / math.sqrt(r)
            A_factors[name] = A
            B_factors[name] = B

        return A_factors, B_factors


def fitness_shaping(fitnesses: torch.Tensor, method: str = "centered_rank") -> torch.Tensor:
    """
    Shape raw fitness scores for more stable gradient estimates.

    centered_rank: Rank-based shaping (most robust, used in OpenAI ES paper)
    normalized: Zero-mean, unit-variance
    raw: No transformation
    """
    n = len(fitnesses)

    if method == "centered_rank":
        # Rank-based fitness shaping
        ranks = torch.zeros_like(fitnesses)
        sorted_indices = fitnesses.argsort()
        for i, idx in enumerate(sorted_indices):
            ranks[idx] = i
        # Normalize to [-0.5, 0.5]
        shaped = ranks / (n - 1) - 0.5
        return shaped

    elif method == "normalized":
        mean = fitnesses.mean()
        std = fitnesses.std() + 1e-8
        return (fitnesses - mean) / std

    elif method == "raw":
        return fitnesses

    else:
        raise ValueError(f"Unknown fitness shaping method: {method}")


def evolve_step(
    params: Dict[str, torch.Tensor],
    perturbations: List[Dict[str, torch.Tensor]],
    fitnesses: torch.Tensor,
    config: EggrollConfig,
) -> Dict[str, torch.Tensor]:
    """
    Single evolution step: update parameters based on fitness-weighted perturbations.

    This is the core ES update rule:
        θ_new = θ + lr * (1/nσ) * Σ_i F_i * ε_i

    Where F_i is the shaped fitness and ε_i is the perturbation.
    """
    n = len(perturbations)
    shaped = fitness_shaping(fitnesses, config.fitness_shaping)

    # Optional: elite selection
    if config.elite_k > 0 and config.elite_k < n:
        topk_indices = shaped.topk(config.elite_k).indices
        perturbations = [perturbations[i] for i in topk_indices]
        shaped = shaped[topk_indices]
        n = config.elite_k

    updated = {}
    for name, param in params.items():
        # Weighted sum of perturbations
        grad_estimate = torch.zeros_like(param)
        for i in range(n):
            grad_estimate += shaped[i] * perturbations[i][name]
        grad_estimate /= (n * config.sigma)

        # Weight decay
        if config.weight_decay > 0:
            grad_estimate -= config.weight_decay * param

        updated[name] = param + config.lr * grad_estimate

    return updated


def evolve_step_batched(
    params: Dict[str, torch.Tensor],
    A_factors: Dict[str, torch.Tensor],
    B_factors: Dict[str, torch.Tensor],
    fitnesses: torch.Tensor,
    config: EggrollConfig,
) -> Dict[str, torch.Tensor]:
    """
    Batched evolution step using factored perturbations.
    More GPU-efficient than the loop version.
    """
    n = A_factors[next(iter(A_factors))].shape[0]

    # Handle antithetic: duplicate fitnesses for positive and mirrored
    if config.antithetic:
        # fitnesses should have 2n entries: [f_1+, f_1-, f_2+, f_2-, ...]
        pos_fit = fitnesses[0::2]
        neg_fit = fitnesses[1::2]
        # Effective fitness for each perturbation
        eff_fit = (pos_fit - neg_fit) / 2.0
        shaped = fitness_shaping(eff_fit, config.fitness_shaping)
    else:
        shaped = fitness_shaping(fitnesses, config.fitness_shaping)

    actual_n = len(shaped)
    updated = {}

    for name, param in params.items():
        d = math.prod(param.shape)
        A = A_factors[name][:actual_n]  # (actual_n, d, r)
        B = B_factors[name][:actual_n]  # (actual_n, d, r)

        # Perturbation vectors: (actual_n, d) = sum over rank dim of A*B
        noise = (A * B).sum(dim=2) * config.sigma  # (actual_n, d)

        # Fitness-weighted sum: (d,) = shaped @ noise
        grad_estimate = (shaped.unsqueeze(1) * noise).sum(dim=0)  # (d,)
        grad_estimate /= (actual_n * config.sigma)

        if config.weight_decay > 0:
            grad_estimate -= config.weight_decay * param.reshape(-1)

        updated[name] = (param.reshape(-1) + config.lr * grad_estimate).reshape(param.shape)

    return updated
