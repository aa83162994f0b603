"""Shared-history dense and selected multi-query Attention Residuals.

The public validation layer deliberately does not import Triton.  Query
sequences are the only containers packed here: residual sources retain their
original tensors and autograd edges all the way to the custom-op boundary.
"""

from __future__ import annotations

import torch
from torch import Tensor

from ._sources import (
    _EPS,
    _MAX_SOURCES,
    _MAX_WIDTH,
    _validate_scalar,
    validate_sources,
)
from .api import attnres as _single_attnres

_MAX_QUERIES = 16
_OUTPUT_LAYOUTS = ("query_major", "token_major")
_STRATEGIES = ("auto", "online", "tiled", "routing")


def _validate_choice(value: str, name: str, choices: tuple[str, ...]) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string")
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}")


def _validate_bank(bank: Tensor, name: str, *, dense: bool) -> None:
    if not isinstance(bank, Tensor):
        raise TypeError(f"{name} must be a tensor")
    if bank.ndim != 2:
        raise ValueError(f"{name} must have shape [M,R]" if dense else
                         f"{name} must have shape [E,R]")
    if any(size < 1 for size in bank.shape):
        raise ValueError(f"{name} dimensions must be positive")
    if dense and bank.shape[0] > _MAX_QUERIES:
        raise ValueError(f"supported query envelope is 1<=M<={_MAX_QUERIES}")
    if bank.dtype != torch.bfloat16:
        raise TypeError(f"{name} must use BF16 storage")


def _normalize_queries(queries: Tensor | list[Tensor] | tuple[Tensor, ...]):
    """Validate query metadata without materializing a query or source bank."""
    if isinstance(queries, Tensor):
        _validate_bank(queries, "queries", dense=True)
        return queries, queries.select(0, 0), queries.shape[0]
    if not isinstance(queries, (list, tuple)):
        raise TypeError("queries must be a [M,R] tensor or a list/tuple of [R] tensors")
    if not 1 <= len(queries) <= _MAX_QUERIES:
        raise ValueError(f"supported query envelope is 1<=M<={_MAX_QUERIES}")
    if any(not isinstance(query, Tensor) for query in queries):
        raise TypeError("queries must contain only tensors")
    first = queries[0]
    for query in queries:
        if query.ndim != 1 or query.shape[0] < 1:
            raise ValueError("each query must have shape [R] with R>=1")
        if query.shape != first.shape:
            raise ValueError("all queries must have the same logical shape")
        if query.dtype != torch.bfloat16:
            raise TypeError("queries must use BF16 storage")
        if query.device != first.device:
            raise TypeError("all queries must be on the same device")
    return tuple(queries), first, len(queries)


def _normalize_values(values, query: Tensor, eps: float, scale: float):
    """Use the original source contract, keeping packed inputs packed.

    The packed metadata checks mirror ``api._validate`` except for its final
    CUDA check, so selected-ID metadata can also be checked on CPU before the
    production-device error.  Per-source validation uses the existing helper.
    No source is stacked, concatenated, unbound, or made contiguous here.
    """
    if isinstance(values, Tensor):
        if values.ndim < 2:
            raise ValueError("values must have shape [S,...,D]")
        if not 1 <= values.shape[0] <= _MAX_SOURCES:
            raise ValueError(f"supported source envelope is 1<=S<={_MAX_SOURCES}")
        if not 1 <= values.shape[-1] <= _MAX_WIDTH:
            raise ValueError(f"supported value envelope is 1<=D<={_MAX_WIDTH}")
        if any(size < 1 for size in values.shape):
            raise ValueError("source dimensions must be positive")
        if values.dtype != torch.bfloat16:
            raise TypeError("values must use BF16 storage")
        if query.device != values.device:
            raise TypeError("queries must be on the values device")
        if not 1 <= query.shape[0] <= values.shape[-1]:
            raise ValueError("query rank must satisfy 1<=R<=D")
        _validate_scalar(eps, "eps", positive=True)
        _validate_scalar(scale, "scale")
        return [values], True, values, tuple(values.shape[1:])
    source_tuple = validate_sources(values, query, eps, scale)
    first = source_tuple[0]
    return list(source_tuple), False, first, tuple(first.shape)


def _validate_ids(selected_ids: Tensor, source_shape, device: torch.device) -> None:
    if not isinstance(selected_ids, Tensor):
        raise TypeError("selected_ids must be a tensor")
    if selected_ids.ndim != len(source_shape):
        raise ValueError("selected_ids must have shape [...,K] matching source leading dimensions")
    if tuple(selected_ids.shape[:-1]) != tuple(source_shape[:-1]):
        raise ValueError("selected_ids must match the source leading dimensions")
    if not 1 <= selected_ids.shape[-1] <= _MAX_QUERIES:
        raise ValueError(f"supported selected-query envelope is 1<=K<={_MAX_QUERIES}")
    if selected_ids.dtype not in (torch.int32, torch.int64):
        raise TypeError("selected_ids must use int32 or int64 storage")
    if selected_ids.device != device:
        raise TypeError("selected_ids must be on the values device")


def attnres_multi(
    values: Tensor | list[Tensor] | tuple[Tensor, ...],
    queries: Tensor | list[Tensor] | tuple[Tensor, ...],
    *,
    eps: float = _EPS,
    scale: float = 1.0,
    output_layout: str = "query_major",
    strategy: str = "auto",
) -> Tensor:
    """Evaluate 1--16 static depth-routing queries over shared sources.

    ``values`` is either ``[S,...,D]`` or a list/tuple of ``S`` original
    ``[...,D]`` tensors.  ``queries`` is ``[M,R]`` or a list/tuple of ``[R]``
    tensors.  Each query uses the same per-source RMS-normalized final ``R``
    coordinates; values retain width ``D``.  Each output is mathematically an
    independent ``attnres(values, queries[m], eps=eps, scale=scale)`` read.

    ``output_layout="query_major"`` returns ``[M,...,D]``;
    ``"token_major"`` returns ``[...,M,D]``.  Multi-query kernels write the
    requested layout directly.  For ``M=1``, this function calls the unchanged
    single-query ``attnres`` route and adds a dimension with a view.

    ``strategy`` selects the exact forward algorithm: ``"auto"`` uses bounded
    resident-state dispatch; ``"online"`` requests an all-query online pass;
    ``"tiled"`` bounds query residency; ``"routing"`` separates shared routing
    from tiled value mixing.  Unsafe resident online sizes are rejected by the
    launch layer.  The selector has no effect for ``M=1``.

    All values and queries must be CUDA BF16.  Accumulation and saved routing
    state use FP32; outputs and first-order input gradients use BF16.  Source
    aliases and repeated query tensors preserve PyTorch graph-edge semantics.
    No source packing, alias deduplication, or projected-key mode is introduced.
    Empty dimensions and higher-order differentiation are unsupported.
    """
    _validate_choice(output_layout, "output_layout", _OUTPUT_LAYOUTS)
    _validate_choice(strategy, "strategy", _STRATEGIES)
    normalized_queries, first_query, count = _normalize_queries(queries)
    if count == 1:
        result = _single_attnres(values, first_query, eps=eps, scale=scale)
        return result.unsqueeze(0 if output_layout == "query_major" else -2)
    sources, packed, first_source, _source_shape = _normalize_values(
        values, first_query, eps, scale
    )
    if not first_source.is_cuda:
        raise RuntimeError("attnres_multi requires CUDA BF16 tensors")
    query_bank = (normalized_queries if isinstance(normalized_queries, Tensor)
                  else torch.stack(normalized_queries, dim=0))
    from ._kernels.multiquery_ops import multiquery_with_aux

    return multiquery_with_aux(
        sources, query_bank, None, packed, float(eps), float(scale), strategy, output_layout
    )[0]


def attnres_selected(
    values: Tensor | list[Tensor] | tuple[Tensor, ...],
    query_bank: Tensor,
    selected_ids: Tensor,
    *,
    eps: float = _EPS,
    scale: float = 1.0,
    strategy: str = "auto",
) -> Tensor:
    """Evaluate a small per-token selection from an expert query bank.

    ``query_bank`` is CUDA BF16 ``[E,R]`` with ``E>=1``.  ``selected_ids`` is
    CUDA int32/int64 ``[...,K]``, matching the source leading dimensions, with
    ``1<=K<=16`` and IDs in ``[0,E)``.  The result is ``[...,K,D]``.  Only the
    selected queries are evaluated; no ``[...,E,D]`` result is materialized.
    ID bounds are checked asynchronously on CUDA inside the custom-op body,
    without a host-device synchronization.  Invalid IDs raise a CUDA device
    assertion, possibly at a later synchronization point.

    Values, key semantics, scalar options, source-list support and forward
    strategy names match :func:`attnres_multi`.  Repeated IDs accumulate into
    their bank row through a deterministic reduction.  Bank rows selected by
    zero token/slot pairs have zero gradient.  First-order gradients propagate
    to sources and the query bank; integer IDs are nondifferentiable.
    """
    _validate_choice(strategy, "strategy", _STRATEGIES)
    _validate_bank(query_bank, "query_bank", dense=False)
    sources, packed, first_source, source_shape = _normalize_values(
        values, query_bank.select(0, 0), eps, scale
    )
    _validate_ids(selected_ids, source_shape, first_source.device)
    if not first_source.is_cuda:
        raise RuntimeError("attnres_selected requires CUDA BF16 tensors")
    from ._kernels.multiquery_ops import multiquery_with_aux

    return multiquery_with_aux(
        sources, query_bank, selected_ids, packed, float(eps), float(scale),
        strategy, "token_major",
    )[0]


__all__ = ["attnres_multi", "attnres_selected"]
