from torch import Tensor

from .modules import LearnedQuery as LearnedQuery

__version__: str


def attnres(
    values: Tensor | list[Tensor] | tuple[Tensor, ...],
    query: Tensor,
    *,
    eps: float = ...,
    scale: float = ...,
) -> Tensor: ...


def attnres_multi(
    values: Tensor | list[Tensor] | tuple[Tensor, ...],
    queries: Tensor | list[Tensor] | tuple[Tensor, ...],
    *,
    eps: float = ...,
    scale: float = ...,
    output_layout: str = ...,
    strategy: str = ...,
) -> Tensor: ...


def attnres_selected(
    values: Tensor | list[Tensor] | tuple[Tensor, ...],
    query_bank: Tensor,
    selected_ids: Tensor,
    *,
    eps: float = ...,
    scale: float = ...,
    strategy: str = ...,
) -> Tensor: ...


__all__ = ["LearnedQuery", "__version__", "attnres", "attnres_multi", "attnres_selected"]
