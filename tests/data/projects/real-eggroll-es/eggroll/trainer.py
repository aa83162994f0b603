"""
EGGROLL Trainer — High-level API for gradient-free model evolution.

Handles the full loop: load model → perturb → evaluate → update → repeat.
Works with any HuggingFace model out of the box.
"""

import torch
import torch.nn as nn
import copy
import time
import math
from typing import Optional, Callable, Dict, Any, List
from dataclasses import dataclass

from eggroll.core import EggrollConfig, LowRankNoiser, evolve_step, fitness_shaping


class EggrollTrainer:
    """
    Gradient-free trainer using EGGROLL evolution strategies.

    Usage:
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from eggroll import EggrollTrainer, EggrollConfig, PerplexityReward

        model = AutoModelForCausalLM.from_pretrained("gpt2")
        tokenizer = AutoTokenizer.from_pretrained("gpt2")
        config = EggrollConfig(population_size=64, rank=4, generations=50)
        reward = PerplexityReward(tokenizer)

        trainer = EggrollTrainer(model, config, reward)
        trainer.evolve(train_dataloader)
        trainer.save("./evolved-model")
    """

    def __init__(
        self,
        model: nn.Module,
        config: EggrollConfig,
        reward_fn: Callable,
        tokenizer=None,
    ):
        self.model = model.to(config.device)
        self.config = config
        self.reward_fn = reward_fn
        self.tokenizer = tokenizer
        self.history: List[Dict[str, Any]] = []

        # Identify target parameters
        self.target_params = self._get_target_params()
        param_shapes = {name: p.shape for name, p in self.target_params.items()}
        self.noiser = LowRankNoiser(param_shapes, config)

        total = sum(math.prod(s) for s in param_shapes.values())
        print(f"[EGGROLL] Target parameters: {len(param_shapes)}, Total: {total:,}")
        print(f"[EGGROLL] Population: {config.population_size}, Rank: {config.rank}, "
              f"Sigma: {config.sigma}, LR: {config.lr}")
        print(f"[EGGROLL] Device: {config.device}")

    def _get_target_params(self) -> Dict[str, nn.Parameter]:
        """Get parameters to evolve, filtered by target_modules if specified."""
        targets = {}
        for name, param in self.model.named_parameters():
            if not param.requires_grad:
                continue
            if self.config.target_modules:
                if any(pattern in name for pattern in self.config.target_modules):
                    targets[name] = param
            else:
                targets[name] = param
        return targets

    def _apply_perturbation(self, perturbation: Dict[str, torch.Tensor]):
        """Apply a perturbation to the model parameters (in-place)."""
        state = self.model.state_dict()
        for name, noise in perturbation.items():
            state[name] = state[name] + noise
        self.model.load_state_dict(state)

    def _set_params(self, params: Dict[str, torch.Tensor]):
        """Set model parameters from dict."""
        state = self.model.state_dict()
        for name, value in params.items():
            state[name] = value
        self.model.load_state_dict(state)

    def _get_params(self) -> Dict[str, torch.Tensor]:
        """Get current target parameter values."""
        state = self.model.state_dict()
        return {name: state[name].clone() for name in self.target_params}

    @torch.no_grad()
    def _evaluate_population(
        self,
        base_params: Dict[str, torch.Tensor],
        perturbations: List[Dict[str, torch.Tensor]],
        batch: Any,
    ) -> torch.Tensor:
        """Evaluate all population members on a batch."""
        self.model.eval()
        fitnesses = []

        for pert in perturbations:
            # Apply perturbation
            params_pert = {
                name: base_params[name] + pert[name]
                for name in base_params
            }
            self._set_params(params_pert)

            # Evaluate
            fitness = self.reward_fn(self.model, batch)
            fitnesses.append(fitness)

        # Restore base parameters
        self._set_params(base_params)

        return torch.tensor(fitnesses, device=self.config.device, dtype=torch.float32)

    def evolve(
        self,
        dataloader,
        callback: Optional[Callable] = None,
    ) -> Dict[str, Any]:
        """
        Run the full evolution loop.

        Args:
            dataloader: Iterator yielding batches for evaluation
            callback: Optional function called each generation with stats dict

        Returns:
            Dict with training history
        """
        config = self.config
        data_iter = iter(dataloader)
        best_fitness = float("-inf")
        best_params = None

        print(f"\n[EGGROLL] Starting evolution for {config.generations} generations...")
        t_start = time.time()

        for gen in range(config.generations):
            t_gen = time.time()

            # Get batch (cycle if exhausted)
            try:
                batch = next(data_iter)
            except StopIteration:
                data_iter = iter(dataloader)
                batch = next(data_iter)

            # Move batch to device
            if isinstance(batch, dict):
                batch = {k: v.to(config.device) if torch.is_tensor(v) else v
                         for k, v in batch.items()}
            elif torch.is_tensor(batch):
                batch = batch.to(config.device)

            # Get current parameters
            base_params = self._get_params()

            # Sample perturbations
            n = config.population_size
            perturbations = self.noiser.sample_perturbations(n)

            # Evaluate population
            fitnesses = self._evaluate_population(base_params, perturbations, batch)

            # Update parameters
            updated_params = evolve_step(base_params, perturbations, fitnesses, config)
            self._set_params(updated_params)

            # Track best
            gen_best = fitnesses.max().item()
            gen_mean = fitnesses.mean().item()
            gen_std = fitnesses.std().item()

            if gen_best > best_fitness:
                best_fitness = gen_best
                best_params = {k: v.clone() for k, v in updated_params.items()}

            elapsed = time.time() - t_gen
            pop_size = len(perturbations)

            stats = {
                "generation": gen,
                "best_fitness": gen_best,
                "mean_fitness": gen_mean,
                "std_fitness": gen_std,
                "best_ever": best_fitness,
                "population_size": pop_size,
                "time_sec": elapsed,
                "evals_per_sec": pop_size / elapsed,
            }
            self.history.append(stats)

            if gen % max(1, config.generations // 20) == 0 or gen == config.generations - 1:
                print(
                    f"  Gen {gen:4d}/{config.generations} | "
                    f"Best: {gen_best:+.4f} | Mean: {gen_mean:+.4f} | "
                    f"Std: {gen_std:.4f} | Best Ever: {best_fitness:+.4f} | "
                    f"{elapsed:.1f}s ({pop_size/elapsed:.0f} eval/s)"
                )

            if callback:
                callback(stats)

        total_time = time.time() - t_start
        total_evals = sum(s["population_size"] for s in self.history)

        print(f"\n[EGGROLL] Evolution complete!")
        print(f"  Total time: {total_time:.1f}s")
        print(f"  Total evaluations: {total_evals:,}")
        print(f"  Best fitness: {best_fitness:+.4f}")

        # Restore best parameters
        if best_params:
            self._set_params(best_params)

        return {
            "best_fitness": best_fitness,
            "total_time": total_time,
            "total_evals": total_evals,
            "history": self.history,
        }

    def save(self, path: str):
        """Save the evolved model."""
        self.model.save_pretrained(path)
        if self.tokenizer:
            self.tokenizer.save_pretrained(path)
        print(f"[EGGROLL] Model saved to {path}")

    def save_checkpoint(self, path: str):
        """Save a checkpoint with config and history."""
        import json
        torch.save({
            "model_state_dict": self.model.state_dict(),
            "config": self.config.__dict__,
            "history": self.history,
        }, path)
        print(f"[EGGROLL] Checkpoint saved to {path}")
