"""Opaque CUDA multi-query operators with explicit fake/autograd contracts.

This follows ``fixed_tail_sources``' established ``torch.library.custom_op``
pattern.  Triton stays lazy, so CPU-only tooling can inspect fake/meta shapes
and capture graphs without pretending to execute the production kernels.
"""

from __future__ import annotations

import inspect
import math
from typing import Any

import torch


_OP_KWARGS: dict[str, object] = {}
if ("tags" in inspect.signature(torch.library.custom_op).parameters
        and hasattr(torch, "Tag") and hasattr(torch.Tag, "flexible_layout")):
    _OP_KWARGS = {"tags": (torch.Tag.flexible_layout,)}


@torch.library.custom_op(
    "attnres::_multiquery_forward_with_aux", mutates_args=(),
    device_types="cuda", **_OP_KWARGS,
)
def multiquery_with_aux(
    sources: list[torch.Tensor],
    queries: torch.Tensor,
    selected_ids: torch.Tensor | None,
    packed: bool,
    eps: float,
    scale: float,
    strategy: str,
    output_layout: str,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    if selected_ids is not None:
        # Keep the check within the opaque operation so graph optimizations
        # cannot discard it.  It runs on the device, without .item()/CPU sync.
        torch._assert_async(
            ((selected_ids >= 0) & (selected_ids < queries.shape[0])).all(),
            "selected_ids must satisfy 0 <= id < query_bank.shape[0]",
        )
    from .multiquery import forward

    return tuple(forward(
        sources, queries, selected_ids, packed, eps, scale, strategy, output_layout
    ))


@torch.library.custom_op(
    "attnres::_multiquery_backward", mutates_args=(),
    device_types="cuda", **_OP_KWARGS,
)
def multiquery_backward(
    sources: list[torch.Tensor],
    queries: torch.Tensor,
    selected_ids: torch.Tensor | None,
    packed: bool,
    saved_output_fp32: torch.Tensor,
    grad_output: torch.Tensor,
    saved_key_inv_rms: torch.Tensor,
    saved_logit: torch.Tensor,
    softmax_stats: torch.Tensor,
    scale: float,
    output_layout: str,
) -> list[torch.Tensor]:
    from .multiquery import backward

    return backward(
        sources, queries, selected_ids, packed, saved_output_fp32, grad_output,
        saved_key_inv_rms, saved_logit, softmax_stats, scale, output_layout,
    )


@multiquery_with_aux.register_fake
def _multiquery_forward_fake(
    sources: list[torch.Tensor],
    queries: torch.Tensor,
    selected_ids: torch.Tensor | None,
    packed: bool,
    eps: float,
    scale: float,
    strategy: str,
    output_layout: str,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    del eps, scale, strategy
    first = sources[0]
    source_shape = tuple(first.shape[1:] if packed else first.shape)
    width = source_shape[-1]
    rows = math.prod(source_shape[:-1])
    source_count = first.shape[0] if packed else len(sources)
    count = queries.shape[0] if selected_ids is None else selected_ids.shape[-1]
    output_shape = ((count, *source_shape) if output_layout == "query_major" else
                    (*source_shape[:-1], count, width))
    return (
        first.new_empty(output_shape),
        first.new_empty((rows, count, width), dtype=torch.float32),
        first.new_empty((source_count, rows), dtype=torch.float32),
        first.new_empty((source_count, rows, count), dtype=torch.float32),
        first.new_empty((2, rows, count), dtype=torch.float32),
    )


@multiquery_backward.register_fake
def _multiquery_backward_fake(
    sources: list[torch.Tensor],
    queries: torch.Tensor,
    selected_ids: torch.Tensor | None,
    packed: bool,
    saved_output_fp32: torch.Tensor,
    grad_output: torch.Tensor,
    saved_key_inv_rms: torch.Tensor,
    saved_logit: torch.Tensor,
    softmax_stats: torch.Tensor,
    scale: float,
    output_layout: str,
) -> list[torch.Tensor]:
    del selected_ids, packed, saved_output_fp32, grad_output, saved_key_inv_rms
    del saved_logit, softmax_stats, scale, output_layout
    return [source.new_empty(source.shape) for source in sources] + [
        queries.new_empty(queries.shape)
    ]


def _setup_context(ctx: Any, inputs: tuple[Any, ...], output: tuple[Any, ...]) -> None:
    sources, queries, selected_ids, packed, _eps, scale, _strategy, output_layout = inputs
    ctx.mark_non_differentiable(*output[1:])
    ctx.set_materialize_grads(False)
    ctx.save_for_backward(*sources, queries, selected_ids, *output[1:])
    ctx.input_source_count = len(sources)
    ctx.packed = packed
    ctx.scale = scale
    ctx.output_layout = output_layout


def _backward(
    ctx: Any,
    grad_output: torch.Tensor | None,
    _grad_saved_output_fp32: torch.Tensor | None = None,
    _grad_saved_key_inv_rms: torch.Tensor | None = None,
    _grad_saved_logit: torch.Tensor | None = None,
    _grad_softmax_stats: torch.Tensor | None = None,
) -> tuple[Any, ...]:
    count = ctx.input_source_count
    if grad_output is None:
        return [None] * count, None, None, None, None, None, None, None
    saved = ctx.saved_tensors
    sources = list(saved[:count])
    queries, selected_ids, saved_output_fp32, inv, logit, stats = saved[count:]
    gradients = multiquery_backward(
        sources, queries, selected_ids, ctx.packed, saved_output_fp32, grad_output,
        inv, logit, stats, float(ctx.scale), ctx.output_layout,
    )
    # Return one gradient per original argument edge, even when tensor objects
    # or underlying storage repeat.  PyTorch owns producer-level accumulation.
    return gradients[:count], gradients[count], None, None, None, None, None, None


torch.library.register_autograd(multiquery_with_aux, _backward, setup_context=_setup_context)


def _reject_double_backward(ctx: Any, *gradients: Any) -> tuple[Any, ...]:
    del ctx, gradients
    raise RuntimeError(
        "attnres multi-query kernels support first-order autograd only; "
        "double backward is unsupported"
    )


torch.library.register_autograd(multiquery_backward, _reject_double_backward)


__all__ = ["multiquery_with_aux", "multiquery_backward"]
