"""High-level MAML wrapper around any ``nn.Module``.

:class:`MAML` wraps a model and produces :class:`Learner` clones whose parameters
can be adapted with a differentiable inner loop. A plain :class:`torch.optim`
optimizer over ``maml.parameters()`` plays the role of the meta-optimizer
(``beta``)::

    maml = MAML(model, inner_lr=0.01, inner_steps=5, first_order=False)
    meta_opt = torch.optim.Adam(maml.parameters(), lr=1e-3)

    meta_opt.zero_grad()
    for task in task_batch:
        learner = maml.clone()
        for _ in range(maml.inner_steps):
            learner.adapt(loss_fn(learner(task.support_x), task.support_y))
        loss_fn(learner(task.query_x), task.query_y).backward()  # accumulates meta-grad
    meta_opt.step()

The ``.backward()`` call works for both first-order and second-order training;
see :mod:`iteryne.functional` for why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from torch import Tensor, nn

from .functional import (
    LearningRate,
    adapt,
    functional_forward,
    inner_step,
    named_buffers,
    named_params,
)

__all__ = ["MAML", "Learner"]


class Learner:
    """A single adaptable copy of a model's parameters.

    A ``Learner`` is created by :meth:`MAML.clone`. It starts from the wrapped
    module's live parameters and updates an internal parameter mapping with each
    :meth:`adapt` call. Calling the learner runs a stateless forward pass with
    the current (possibly adapted) parameters.
    """

    def __init__(
        self,
        module: nn.Module,
        params: dict[str, Tensor],
        buffers: dict[str, Tensor],
        *,
        lr: LearningRate,
        inner_steps: int,
        first_order: bool,
        adapt_names: Iterable[str] | None,
        allow_unused: bool,
    ) -> None:
        self.module = module
        self.params = params
        self.buffers = buffers
        self.lr = lr
        self.inner_steps = inner_steps
        self.first_order = first_order
        self.adapt_names = tuple(adapt_names) if adapt_names is not None else None
        self.allow_unused = allow_unused

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Forward pass using the learner's current parameters."""
        return functional_forward(self.module, self.params, *args, buffers=self.buffers, **kwargs)

    forward = __call__

    def adapt(self, support_loss: Tensor) -> Learner:
        """Take one differentiable inner-loop step from ``support_loss``.

        Updates :attr:`params` in place (the learner) and returns ``self`` so
        calls can be chained.
        """
        self.params = inner_step(
            self.params,
            support_loss,
            self.lr,
            first_order=self.first_order,
            adapt_names=self.adapt_names,
            allow_unused=self.allow_unused,
        )
        return self

    def adapt_on(
        self,
        loss_fn: Callable[[Any, Any], Tensor],
        x: Any,
        y: Any,
        *,
        steps: int | None = None,
    ) -> Learner:
        """Run ``steps`` inner steps on a single ``(x, y)`` support batch.

        Convenience wrapper that recomputes the support loss at each step. If
        ``steps`` is ``None``, uses the learner's configured ``inner_steps``.
        """
        n = self.inner_steps if steps is None else steps
        self.params = adapt(
            self.module,
            self.params,
            lambda p: loss_fn(functional_forward(self.module, p, x, buffers=self.buffers), y),
            lr=self.lr,
            inner_steps=n,
            first_order=self.first_order,
            adapt_names=self.adapt_names,
            allow_unused=self.allow_unused,
        )
        return self


class MAML(nn.Module):
    """Model-agnostic meta-learning wrapper for any ``nn.Module``.

    Parameters
    ----------
    module:
        The model to meta-train. Its parameters are the meta-parameters
        ``theta`` optimized by the outer loop.
    inner_lr:
        Inner-loop step size ``alpha``.
    inner_steps:
        Default number of inner gradient steps used by :meth:`Learner.adapt_on`
        and by :class:`~iteryne.trainer.MetaTrainer`.
    first_order:
        If ``True``, use the first-order approximation (FOMAML): drop second
        derivatives in the meta-gradient.
    adapt_names:
        Optional subset of parameter names to adapt in the inner loop. Defaults
        to all parameters. See :mod:`iteryne.anil` for adapting only a head.
    allow_unused:
        Forwarded to the inner gradient computation.
    """

    def __init__(
        self,
        module: nn.Module,
        *,
        inner_lr: float = 0.01,
        inner_steps: int = 1,
        first_order: bool = False,
        adapt_names: Iterable[str] | None = None,
        allow_unused: bool = True,
    ) -> None:
        super().__init__()
        self.module = module
        self.inner_lr = inner_lr
        self.inner_steps = inner_steps
        self.first_order = first_order
        self.adapt_names = tuple(adapt_names) if adapt_names is not None else None
        self.allow_unused = allow_unused

    def _inner_lr(self) -> LearningRate:
        """Return the learning rate passed to inner steps.

        Subclasses (e.g. Meta-SGD) override this to supply learnable, per-parameter
        rates.
        """
        return self.inner_lr

    def clone(self) -> Learner:
        """Create a fresh :class:`Learner` starting from the current ``theta``.

        The learner references the wrapped module's live parameter leaves, so a
        ``backward()`` through an adapted learner accumulates meta-gradients into
        ``self.parameters()``.
        """
        return Learner(
            self.module,
            named_params(self.module),
            named_buffers(self.module),
            lr=self._inner_lr(),
            inner_steps=self.inner_steps,
            first_order=self.first_order,
            adapt_names=self.adapt_names,
            allow_unused=self.allow_unused,
        )

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Forward pass through the unadapted module (the meta-parameters)."""
        return self.module(*args, **kwargs)
