# Copyright (c) 2021-2026 Gustavo de Rosa.
# Licensed under the Apache License, Version 2.0.

"""Evolution Strategies.

References:
    H.-G. Beyer and H.-P. Schwefel.
    Evolution strategies – A comprehensive introduction.
    Natural Computing (2002).
"""

from __future__ import annotations

from numbers import Real
from typing import Any

import torch

from otorchmizer.core.optimizer import Optimizer, UpdateContext


class ES(Optimizer):
    """Apply self-adaptive mutation and combined parent-child selection."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        """Initialize the optimizer.

        Args:
            params: Parameter overrides applied after the algorithm defaults.

        """

        self.child_ratio = 0.5

        super().__init__(params)

    @property
    def child_ratio(self) -> float:
        """Return the fraction of agents used to produce children."""

        return self._child_ratio

    @child_ratio.setter
    def child_ratio(self, child_ratio: float) -> None:
        if not isinstance(child_ratio, Real):
            raise TypeError("`child_ratio` must be a float or integer.")
        if not 0 <= child_ratio <= 1:
            raise ValueError("`child_ratio` must be between 0 and 1.")
        self._child_ratio = float(child_ratio)

    def compile(self, population) -> None:
        """Initialize child count and mutation strategies.

        Args:
            population: Population that defines state shape, bounds, and device.

        """

        n = population.n_agents
        self.n_children = max(int(n * self.child_ratio), 1)
        shape = (n, population.n_variables, population.n_dimensions)
        lb = population.lb.unsqueeze(0)
        ub = population.ub.unsqueeze(0)
        self.strategy = 0.05 * torch.rand(shape, device=population.device, dtype=population.dtype) * (ub - lb)

    def update(self, ctx: UpdateContext) -> None:
        """Produce children and retain the best combined candidates.

        Args:
            ctx: Current optimization state and objective.

        """

        pop = ctx.space.population
        fn = ctx.function
        device = pop.device
        n = pop.n_agents
        lb = pop.lb.unsqueeze(0)
        ub = pop.ub.unsqueeze(0)

        nc = self.n_children

        tau = 1.0 / (2.0 * pop.n_variables) ** 0.5
        tau_p = 1.0 / (2.0 * (pop.n_variables**0.5)) ** 0.5

        new_strategy = self.strategy[:nc].clone()
        r1 = torch.randn(nc, 1, 1, device=device, dtype=pop.dtype)
        r2 = torch.randn(
            nc,
            pop.n_variables,
            pop.n_dimensions,
            device=device,
            dtype=pop.dtype,
        )
        new_strategy = new_strategy * torch.exp(tau_p * r1 + tau * r2)

        children = pop.positions[:nc] + new_strategy * torch.randn(
            nc,
            pop.n_variables,
            pop.n_dimensions,
            device=device,
            dtype=pop.dtype,
        )
        children = children.clamp(min=lb, max=ub)
        children_fitness = fn(children)

        all_pos = torch.cat([pop.positions, children], dim=0)
        all_fit = torch.cat([pop.fitness, children_fitness], dim=0)
        all_strategy = torch.cat([self.strategy, new_strategy], dim=0)

        sorted_idx = torch.argsort(all_fit)[:n]
        pop.positions = all_pos[sorted_idx]
        pop.fitness = all_fit[sorted_idx]
        self.strategy = all_strategy[sorted_idx]
