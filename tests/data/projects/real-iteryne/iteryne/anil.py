"""ANIL: Almost No Inner Loop.

ANIL (Raghu et al., 2020) observes that most of MAML's benefit comes from
adapting only the network *head* in the inner loop while the body (the learned
representation) is shared and updated only by the meta-optimizer. In this library
ANIL is simply MAML with ``adapt_names`` restricted to the head's parameters.

Use :func:`head_names` to collect the parameter names of a head submodule, or the
:class:`ANIL` convenience class which does it for you.
"""

from __future__ import annotations

from torch import nn

from .maml import MAML

__all__ = ["ANIL", "head_names"]


def head_names(module: nn.Module, head: nn.Module) -> list[str]:
    """Return the names (as seen from ``module``) of ``head``'s parameters.

    Parameters are matched by identity, so ``head`` must be a submodule of
    ``module`` (or otherwise share the same parameter tensors).
    """
    head_ids = {id(p) for p in head.parameters()}
    names = [n for n, p in module.named_parameters() if id(p) in head_ids]
    if not names:
        raise ValueError("`head` shares no parameters with `module`; ANIL has nothing to adapt.")
    return names


class ANIL(MAML):
    """MAML that adapts only the parameters of a ``head`` submodule.

    Parameters
    ----------
    module:
        The full model to meta-train.
    head:
        A submodule of ``module`` whose parameters are adapted in the inner loop.
        The remaining (body) parameters are trained only by the meta-optimizer.
    **kwargs:
        Forwarded to :class:`MAML` (``inner_lr``, ``inner_steps``,
        ``first_order``, ``allow_unused``).
    """

    def __init__(self, module: nn.Module, head: nn.Module, **kwargs: object) -> None:
        super().__init__(module, adapt_names=head_names(module, head), **kwargs)  # type: ignore[arg-type]
