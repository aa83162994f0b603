"""Meta-SGD: MAML with learnable per-parameter inner learning rates.

Meta-SGD (Li et al., 2017) extends MAML by learning a separate inner-loop step
size for every parameter alongside the initialization ``theta``. The inner update
becomes ``p' = p - alpha (.) grad`` where ``alpha`` is an elementwise tensor that
is itself trained by the meta-optimizer. This is a thin subclass of :class:`MAML`:
it registers the learning rates as parameters and overrides the inner-lr lookup.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch
from torch import Tensor, nn

from .functional import LearningRate
from .maml import MAML

__all__ = ["MetaSGD"]


def _sanitize(name: str) -> str:
    # nn.ParameterDict keys may not contain ".".
    return name.replace(".", "__")


class MetaSGD(MAML):
    """MAML variant with learnable, per-parameter inner learning rates.

    Parameters
    ----------
    module:
        Model to meta-train.
    inner_lr:
        Initial value for every per-parameter learning rate.
    inner_steps:
        Number of inner gradient steps.
    first_order:
        Defaults to ``False`` because the learning rates are usually learned
        through the second-order meta-gradient.
    adapt_names:
        Optional subset of parameter names to adapt (and to learn rates for).
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
        super().__init__(
            module,
            inner_lr=inner_lr,
            inner_steps=inner_steps,
            first_order=first_order,
            adapt_names=adapt_names,
            allow_unused=allow_unused,
        )
        wanted = set(self.adapt_names) if self.adapt_names is not None else None
        self.lrs = nn.ParameterDict()
        # Map sanitized key -> original parameter name, to rebuild the lr dict.
        self._lr_names: dict[str, str] = {}
        for name, param in module.named_parameters():
            if wanted is not None and name not in wanted:
                continue
            key = _sanitize(name)
            self.lrs[key] = nn.Parameter(torch.full_like(param, float(inner_lr)))
            self._lr_names[key] = name

    def _inner_lr(self) -> LearningRate:
        lr: dict[str, Tensor] = {}
        for key, original in self._lr_names.items():
            lr[original] = self.lrs[key]
        return lr
