"""A ready-made meta-training loop for the common supervised case.

:class:`MetaTrainer` ties together a :class:`~iteryne.maml.MAML` wrapper, a
meta-optimizer, a loss function and a :class:`~iteryne.tasks.TaskSampler`, and
runs Algorithm 2 of the MAML paper. It is optional sugar: everything it does can
be written by hand with :meth:`MAML.clone` and ``backward()``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import Tensor

from .maml import MAML
from .tasks import Task, TaskSampler

__all__ = ["History", "MetaTrainer"]

LossFn = Callable[[Any, Any], Tensor]


@dataclass
class History:
    """Records produced by :meth:`MetaTrainer.fit`."""

    meta_loss: list[float] = field(default_factory=list)
    eval_loss: list[tuple[int, float]] = field(default_factory=list)


class MetaTrainer:
    """Drive MAML meta-training over batches of tasks.

    Parameters
    ----------
    maml:
        The MAML wrapper (or any subclass, e.g. ``MetaSGD``/``ANIL``).
    meta_optimizer:
        Optimizer over ``maml.parameters()`` (the meta-step ``beta``).
    loss_fn:
        ``loss_fn(predictions, targets) -> scalar`` used for both the inner and
        the outer loss.
    task_sampler:
        Source of training tasks.
    """

    def __init__(
        self,
        maml: MAML,
        meta_optimizer: torch.optim.Optimizer,
        loss_fn: LossFn,
        task_sampler: TaskSampler,
    ) -> None:
        self.maml = maml
        self.meta_optimizer = meta_optimizer
        self.loss_fn = loss_fn
        self.task_sampler = task_sampler

    def meta_step(self, tasks: Sequence[Task]) -> float:
        """Run one meta-update over ``tasks`` and return the mean query loss."""
        self.meta_optimizer.zero_grad()
        total = 0.0
        for task in tasks:
            learner = self.maml.clone()
            learner.adapt_on(self.loss_fn, task.support_x, task.support_y)
            query_loss = self.loss_fn(learner(task.query_x), task.query_y)
            # Average over tasks so the meta-gradient matches the mean objective.
            (query_loss / len(tasks)).backward()  # type: ignore[no-untyped-call]
            total += float(query_loss.detach())
        self.meta_optimizer.step()
        return total / len(tasks)

    def fit(
        self,
        num_iterations: int,
        meta_batch_size: int,
        *,
        eval_every: int | None = None,
        eval_tasks: Sequence[Task] | None = None,
        callback: Callable[[int, float], None] | None = None,
    ) -> History:
        """Meta-train for ``num_iterations`` outer steps.

        Parameters
        ----------
        num_iterations:
            Number of meta-updates.
        meta_batch_size:
            Number of tasks sampled per meta-update.
        eval_every:
            If set, run :meth:`evaluate` on ``eval_tasks`` every ``eval_every``
            iterations and record the result.
        eval_tasks:
            Held-out tasks for evaluation (required if ``eval_every`` is set).
        callback:
            Optional ``callback(iteration, meta_loss)`` called after each step.

        Returns
        -------
        History
            Per-iteration meta-loss and any recorded evaluation losses.
        """
        history = History()
        for it in range(num_iterations):
            tasks = self.task_sampler.sample(meta_batch_size)
            loss = self.meta_step(tasks)
            history.meta_loss.append(loss)
            if callback is not None:
                callback(it, loss)
            if eval_every and (it + 1) % eval_every == 0:
                if eval_tasks is None:
                    raise ValueError("eval_every set but eval_tasks is None")
                history.eval_loss.append((it, self.evaluate(eval_tasks)))
        return history

    @torch.no_grad()
    def _query_loss_no_grad(self, learner: Any, task: Task) -> float:
        return float(self.loss_fn(learner(task.query_x), task.query_y).detach())

    def evaluate(self, tasks: Sequence[Task]) -> float:
        """Adapt to each task and return the mean post-adaptation query loss.

        Adaptation still requires gradients (the inner loop), but the reported
        query loss is detached and no meta-update is performed.
        """
        total = 0.0
        for task in tasks:
            learner = self.maml.clone()
            learner.adapt_on(self.loss_fn, task.support_x, task.support_y)
            total += self._query_loss_no_grad(learner, task)
        return total / len(tasks)
