"""Functional core of iteryne.

This module implements the differentiable inner loop of MAML in a purely
functional, model-agnostic way. It builds on :func:`torch.func.functional_call`
so it works on *any* :class:`torch.nn.Module` without modifying or rewriting it.

The two ideas that make MAML work here are:

* Parameters are carried around as an ordinary ``dict[str, Tensor]`` rather than
  living inside the module. A stateless forward pass is produced by
  ``functional_call(model, {**params, **buffers}, args)``.
* An inner gradient step is computed with :func:`torch.autograd.grad`. When
  ``create_graph=True`` (full second-order MAML) the adapted parameters stay
  connected to the original parameters through the gradient term, so a later
  ``loss.backward()`` produces the exact meta-gradient. When
  ``create_graph=False`` (first-order MAML / FOMAML) the gradient term is a
  constant, leaving only the identity edge ``p' = p - alpha * g`` so the same
  ``backward()`` yields ``d loss / d theta'`` -- precisely the FOMAML update.

Because both behaviours come from a single ``create_graph`` flag, the rest of
the library never has to special-case first- vs second-order training.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import torch
from torch import Tensor, nn
from torch.func import functional_call

__all__ = [
    "LearningRate",
    "adapt",
    "functional_forward",
    "inner_step",
    "named_buffers",
    "named_params",
]

# An inner learning rate is either a single scalar applied to every parameter,
# or a per-parameter dict of tensors (used by Meta-SGD).
LearningRate = float | Mapping[str, Tensor]


def named_params(model: nn.Module) -> dict[str, Tensor]:
    """Return a fresh ``{name: parameter}`` dict for ``model``.

    The tensors are the model's live :class:`~torch.nn.Parameter` leaves, so
    gradients flowing back into them accumulate into ``model.parameters().grad``.
    """
    return dict(model.named_parameters())


def named_buffers(model: nn.Module) -> dict[str, Tensor]:
    """Return a fresh ``{name: buffer}`` dict for ``model`` (e.g. BatchNorm stats)."""
    return dict(model.named_buffers())


def functional_forward(
    model: nn.Module,
    params: Mapping[str, Tensor],
    *args: Any,
    buffers: Mapping[str, Tensor] | None = None,
    **kwargs: Any,
) -> Any:
    """Run ``model`` statelessly using the given ``params`` (and ``buffers``).

    Parameters
    ----------
    model:
        Any ``nn.Module``. Its own parameters are ignored; ``params`` are used.
    params:
        Mapping of parameter name to tensor, as returned by :func:`named_params`
        or :func:`adapt`.
    *args, **kwargs:
        Forwarded to the module's ``forward``.
    buffers:
        Optional mapping of buffer name to tensor. If ``None``, the module's own
        buffers are used.

    Returns
    -------
    Any
        Whatever ``model.forward`` returns.
    """
    state: dict[str, Tensor] = {**params}
    if buffers is not None:
        state.update(buffers)
    return functional_call(model, state, args, kwargs)


def _resolve_lr(lr: LearningRate, name: str) -> float | Tensor:
    if isinstance(lr, Mapping):
        return lr[name]
    return lr


def inner_step(
    params: Mapping[str, Tensor],
    loss: Tensor,
    lr: LearningRate,
    *,
    first_order: bool = False,
    adapt_names: Iterable[str] | None = None,
    allow_unused: bool = True,
) -> dict[str, Tensor]:
    """Take one differentiable gradient-descent step on ``params``.

    Computes ``grads = d loss / d params`` and returns the updated mapping
    ``p' = p - lr * grad`` for every adapted parameter.

    Parameters
    ----------
    params:
        Current parameter mapping (the point at which ``loss`` was computed).
    loss:
        Scalar support loss, differentiable w.r.t. ``params``.
    lr:
        Inner-loop step size ``alpha``. Either a float or a per-parameter mapping
        of tensors (Meta-SGD).
    first_order:
        If ``True``, drop second derivatives (FOMAML) by not creating the graph
        of the gradient term. If ``False``, keep the graph for full MAML.
    adapt_names:
        Optional subset of parameter names to update in the inner loop. Names not
        in this set are passed through unchanged (used by ANIL to adapt only the
        head). If ``None``, every parameter is adapted.
    allow_unused:
        Passed to :func:`torch.autograd.grad`. Parameters that do not affect the
        loss receive a ``None`` gradient and are passed through unchanged.

    Returns
    -------
    dict[str, Tensor]
        The adapted parameter mapping.
    """
    names = list(params.keys())
    if adapt_names is None:
        differentiable_names = names
    else:
        wanted = set(adapt_names)
        differentiable_names = [n for n in names if n in wanted]

    if not differentiable_names:
        raise ValueError("inner_step received no parameters to adapt; check `adapt_names`.")

    grads = torch.autograd.grad(
        loss,
        [params[n] for n in differentiable_names],
        create_graph=not first_order,
        allow_unused=allow_unused,
    )
    grad_by_name = dict(zip(differentiable_names, grads, strict=True))

    updated: dict[str, Tensor] = {}
    for name in names:
        param = params[name]
        grad = grad_by_name.get(name)
        if grad is None:
            updated[name] = param
        else:
            updated[name] = param - _resolve_lr(lr, name) * grad
    return updated


def adapt(
    model: nn.Module,
    params: Mapping[str, Tensor],
    build_loss: Callable[[dict[str, Tensor]], Tensor],
    *,
    lr: LearningRate = 0.01,
    inner_steps: int = 1,
    first_order: bool = False,
    adapt_names: Iterable[str] | None = None,
    allow_unused: bool = True,
) -> dict[str, Tensor]:
    """Run the full inner loop and return the adapted parameters ``theta'``.

    Parameters
    ----------
    model:
        The module whose architecture defines the forward pass.
    params:
        Starting parameter mapping ``theta`` (typically :func:`named_params`).
    build_loss:
        Callable mapping a parameter dict to the scalar support loss. Keeping the
        loss as a closure (rather than ``(output, target)``) keeps this core fully
        task- and loss-agnostic; the closure decides how to call ``model`` and
        which data to use. Example::

            build_loss = lambda p: mse(functional_forward(model, p, x), y)

    lr:
        Inner step size ``alpha`` (float or per-parameter mapping).
    inner_steps:
        Number of gradient steps in the inner loop (``>= 1``).
    first_order, adapt_names, allow_unused:
        See :func:`inner_step`.

    Returns
    -------
    dict[str, Tensor]
        The adapted parameter mapping after ``inner_steps`` updates.
    """
    if inner_steps < 1:
        raise ValueError(f"inner_steps must be >= 1, got {inner_steps}")

    adapted: dict[str, Tensor] = dict(params)
    names = tuple(adapt_names) if adapt_names is not None else None
    for _ in range(inner_steps):
        loss = build_loss(adapted)
        adapted = inner_step(
            adapted,
            loss,
            lr,
            first_order=first_order,
            adapt_names=names,
            allow_unused=allow_unused,
        )
    return adapted
