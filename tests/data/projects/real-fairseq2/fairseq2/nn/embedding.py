# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, cast, final

import torch
import torch.nn as nn
from torch import Tensor
from torch.nn import Module, Parameter
from torch.nn.functional import embedding
from typing_extensions import override

from fairseq2.data_type import DataType
from fairseq2.device import META_DEVICE, Device, get_current_device
from fairseq2.gang import Gang, Gangs, get_current_gangs
from fairseq2.nn.sharded import Sharded
from fairseq2.nn.utils.module import get_name_or_self, to_empty
from fairseq2.ops.tensor_parallel import gather, reduce, reduce_on_backward
from fairseq2.utils.warn import _warn_deprecated


class Embedding(Module, ABC):
    """Stores embeddings of a fixed dictionary and size."""

    def __init__(
        self, num_embeddings: int, embed_dim: int, pad_idx: int | None
    ) -> None:
        """
        If ``pad_idx`` is provided, the embedding at the specified index won't
        contribute to the gradient and therefore won't be updated during training.
        """
        super().__init__()

        self.num_embeddings = num_embeddings
        self.embed_dim = embed_dim
        self.pad_idx = pad_idx

    @abstractmethod
    def forward(self, x: Tensor) -> Tensor:
        """
        Returns the embeddings corresponding to the specified indices.

        ``x`` can have any shape.

        The return value will be of shape :math:`(*,E)`, where :math:`*` is the
        input shape and :math:`E` is the dimensionality of the embeddings.
        """

    if TYPE_CHECKING:
        __call__ = forward


@final
class StandardEmbedding(Embedding):
    """Represents the standard implementation of :class:`Embedding`."""

    def __init__(
        self,
        num_embeddings: int,
        embed_dim: int,
        pad_idx: int | None = None,
        *,
        init_fn: Callable[[StandardEmbedding], None] | None = None,
        device: Device | None = None,
        dtype: DataType | None = None,
    ) -> None:
        """
        If ``init_fn`` is provided, it will be used to initialize the embedding
        table in :meth:`reset_parameters`.
        """
        super().__init__(num_embeddings, embed_dim, pad_idx)

        self.weight = Parameter(
            torch.empty((num_embeddings, embed_dim), device=device, dtype=dtype)
        )

        self.init_fn = init_fn

        self.reset_parameters()

    def reset_parameters(self) -> None:
        _init_embedding(self)

    @override
    def forward(self, x: Tensor) -> Tensor:
        return embedding(x, self.weight, self.pad_idx)

    @override
    def extra_repr(self) -> str:
        """:meta private:"""
        s = f"num_embeddings={self.num_embeddings}, embed_dim={self.embed_dim}"

        if self.pad_idx is not None:
            s = f"{s}, pad_idx={self.pad_idx}"

        if self.init_fn is not None:
            init_fn = get_name_or_self(self.init_fn)

            s = f"{s}, init_fn={init_fn}"

        return s


@final
class VocabShardedEmbedding(Embedding, Sharded):
    """
    Represents an :class:`Embedding` sharded across its vocabulary dimension.
    """

    @staticmethod
    def from_embedding(
        embed: StandardEmbedding,
        gang: Gang | None = None,
        *,
        gangs: Gangs | None = None,
    ) -> VocabShardedEmbedding:
        """
        Creates a :class:`VocabShardedEmbedding` by sharding ``embed`` over its
        vocabulary dimension using ``gangs.tp``.

        If ``gangs`` is ``None``, acts like a regular :class:`StandardEmbedding`
        module.
        """
        if gang is not None:
            _warn_deprecated(
                "`gang` parameter of `VocabShardedEmbedding.from_embedding` is deprecated and will be removed in v0.14. Please use the `gangs` parameter instead."
            )

            if gangs is not None:
                raise ValueError(
                    "`gang` and `gangs` cannot be provided at the same time."
                )
        else:
            if gangs is None:
                gangs = get_current_gangs(embed.weight.device)

            gang = gangs.tp

        device = embed.weight.device

        if device != gang.device and device.type != "meta":
            raise ValueError(
                f"Device of `embed` must match `gang.device` or must be of type `meta`, but is `{device}` instead."
            )

        sharded_embed = VocabShardedEmbedding(
            embed.num_embeddings,
            embed.embed_dim,
            embed.pad_idx,
            init_fn=embed.init_fn,
            gangs=gangs,
            device=META_DEVICE,
            dtype=embed.weight.dtype,
            _tp_gang=gang,
        )

        if device.type != "meta":
            to_empty(sharded_embed, device)

        sharded_embed._copy_from_embedding(embed)

        return sharded_embed

    def __init__(
        self,
        num_embeddings: int,
        embed_dim: int,
        pad_idx: int | None = None,
        *,
        init_fn: Callable[[StandardEmbedding], None] | None = None,
        gangs: Gangs | None = None,
        device: Device | None = None,
        dtype: DataType | None = None,
        _tp_gang: Gang | None = None,
    ) -> None:
        super().__init__(num_embeddings, embed_dim, pad_idx)

        if gangs is None:
            gangs = get_current_gangs(device)

        tp_gang = gangs.tp if _tp_gang is None else _tp_gang

        if num_embeddings % tp_gang.size != 0:
            raise ValueError(
                f"`num_embeddings` must be a multiple of `gangs.tp.size` ({tp_gang.size}), but is {num_embeddings} instead."
            )

        self.tp_gang = tp_gang

        self.sharded = tp_gang.size > 1

        self.sharded_num_embeddings = num_embeddings // tp_gang.size

        if device is None:
            device = get_current_device()

        if device.type != "meta" and device != tp_gang.device:
            raise ValueError(
                f"`device` must match `gangs.device` or must be of type `meta`, but is `{device}` instead."
            )

        weight = torch.empty(
            (self.sharded_num_embeddings, embed_dim), device=device, dtype=dtype
        )

        self.weight = Parameter(weight)

        self.init_fn = init_fn

        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.sharded:
            embed = self._embedding_like(device=self.tp_gang.device)

            self._copy_from_embedding(embed)
        else:
            _init_embedding(self)

    def _copy_from_embedding(self, embed: StandardEmbedding) -> None:
        with torch.no_grad():
            weight_shards = embed.weight.split(self.sharded_num_embeddings, dim=0)

            weight = weight_shards[self.tp_gang.rank]

            self.weight.copy_(weight, non_blocking=True)

    @override
    def forward(self, x: Tensor) -> Tensor:
        if not self.sharded:
            return embedding(x, self.weight, self.pad_idx)

        num_embeds = self.sharded_num_embeddings

        vocab_begin_idx, vocab_end_idx = (
            self.tp_gang.rank * num_embeds, (self.tp_gang.rank + 1) * num_embeds  # fmt: skip
        )

        if self.pad_idx is None:
            pad_idx = None
        elif self.pad_idx >= vocab_begin_idx and self.pad_idx < vocab_end_idx:
            pad_idx = self.pad_idx - vocab_begin_idx
        else:
            pad_idx = None

        # (N, S)
        mask = (x < vocab_begin_idx) | (x >= vocab_end_idx)

        x = x - vocab_begin_idx

        x = torch.where(mask, 0, x)

        # (N, S, E)
        x = embedding(x, self.weight, pad_idx)

        # (N, S, 1)
        mask = mask.unsqueeze(-1)

        x = torch.where(mask, 0.0, x)

        # (N, S, E)
        x = reduce(x, self.tp_gang)

        return x

    def to_embedding(self, device: Device | None = None) -> StandardEmbedding:
        """Unshards this instance to a :class:`StandardEmbedding`."""
        embed = self._embedding_like(device=META_DEVICE)

        to_empty(embed, device or self.tp_gang.device)

        with torch.no_grad():
            if self.sharded:
                weight = gather(self.weight, self.tp_gang, dim=0)
            else:
                weight = self.weight

            embed.weight.copy_(weight, non_blocking=True)

        return embed

    def _embedding_like(self, device: Device) -> StandardEmbedding:
        return StandardEmbedding(
            self.num_embeddings,
            self.embed_dim,
            self.pad_idx,
            init_fn=self.init_fn,
            device=device,
            dtype=self.weight.dtype,
        )

    @override
    def get_shard_dims(self) -> list[tuple[Parameter, int]]:
        return [(self.weight, 0)]

    @override
    def extra_repr(self) -> str:
        """:meta private:"""
        s = (
            f"tp_rank={self.tp_gang.rank}, "
            f"tp_size={self.tp_gang.size}, "
            f"num_embeddings={self.num_embeddings}, "
            f"sharded_num_embeddings={self.sharded_num_embeddings}, "
            f"embed_dim={self.embed_dim}"
        )

        if self.pad_idx is not None:
            s = f"{s}, pad_idx={self.pad_idx}"

        if self.init_fn is not None:
            init_fn = get_name_or_self(self.init_fn)

            s = f"{s}, init_fn={init_fn}"

        return s


@final
class ShardedEmbedding(Embedding, Sharded):
    """
    Represents an :class:`Embedding` sharded across its embedding dimension.
    """

    @staticmethod
    def from_embedding(
        embed: StandardEmbedding,
        gang: Gang | None = None,
        *,
        gangs: Gangs | None = None,
    ) -> ShardedEmbedding:
        """
        Creates a :class:`ShardedEmbedding` by sharding ``embed`` over its
        embedding dimension using ``gangs.tp``.

        If ``gangs`` is ``None``, acts like a regular :class:`StandardEmbedding`
        module.
        """
        if gang is not None:
            _warn_deprecated(
                "`gang` parameter of `VocabShardedEmbedding.from_embedding` is deprecated and will be removed in v0.14. Please use the `gangs` parameter instead."
            )

            if gangs is not None:
                raise ValueError(
                    "`gang` and `gangs` cannot be provided at the same time."
                )
        else:
            if gangs is None:
                gangs = get_current_gangs(embed.weight.device)

            gang = gangs.tp

        device = embed.weight.device

        if device != gang.device and device.type != "meta":
            raise ValueError(
                f"Device of `embed` must match `gang.device` or must be of type `meta`, but is `{device}` instead."
            )

        sharded_embed = ShardedEmbedding(
            embed.num_embeddings,
            embed.embed_dim,
            embed.pad_idx,
            init_fn=embed.init_fn,
            gangs=gangs,
            device=META_DEVICE,
            dtype=embed.weight.dtype,
            _tp_gang=gang,
        )

        if device.type != "meta":
            to_empty(sharded_embed, device)

        sharded_embed._copy_from_embedding(embed)

        return sharded_embed

    def __init__(
        self,
        num_embeddings: int,
        embed_dim: int,
        pad_idx: int | None = None,
        *,
        init_fn: Callable[[StandardEmbedding], None] | None = None,
        gangs: Gangs | None = None,
        device: Device | None = None,
        dtype: DataType | None = None,
        _tp_gang: Gang | None = None,
    ) -> None:
        super().__init__(num_embeddings, embed_dim, pad_idx)

        if gangs is None:
            gangs = get_current_gangs(device)

        tp_gang = gangs.tp if _tp_gang is None else _tp_gang

        if embed_dim % tp_gang.size != 0:
            raise ValueError(
                f"`embed_dim` must be a multiple of `gangs.tp.size` ({tp_gang.size}), but is {embed_dim} instead."
            )

        self.tp_gang = tp_gang

        self.sharded = tp_gang.size > 1

        self.sharded_embed_dim = embed_dim // tp_gang.size

        if device is None:
            device = get_current_device()

        if device.type != "meta" and device != tp_gang.device:
            raise ValueError(
                f"`device` must match `gangs.device` or must be of type `meta`, but is `{device}` instead."
            )

        weight = torch.empty(
            (num_embeddings, self.sharded_embed_dim), device=device, dtype=dtype
        )

        self.weight = Parameter(weight)

        self.init_fn = init_fn

        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.sharded:
            embed = self._embedding_like(self.tp_gang.device)

            self._copy_from_embedding(embed)
        else:
            _init_embedding(self)

    def _copy_from_embedding(self, embed: StandardEmbedding) -> None:
        with torch.no_grad():
            weight_shards = embed.weight.split(self.sharded_embed_dim, dim=1)

            weight = weight_shards[self.tp_gang.rank]

            self.weight.copy_(weight, non_blocking=True)

    @override
    def forward(self, x: Tensor) -> Tensor:
        if not self.sharded:
            return embedding(x, self.weight, self.pad_idx)

        x = reduce_on_backward(x, self.tp_gang)

        x = embedding(x, self.weight, self.pad_idx)

        x = gather(x, self.tp_gang)

        return x

    def to_embedding(self, device: Device | None = None) -> StandardEmbedding:
        """Unshards this instance to a :class:`StandardEmbedding`."""
        embed = self._embedding_like(device=META_DEVICE)

        to_empty(embed, device or self.tp_gang.device)

        with torch.no_grad():
            if self.sharded:
                weight = gather(self.weight, self.tp_gang, dim=1)
            else:
                weight = self.weight

            embed.weight.copy_(weight, non_blocking=True)

        return embed

    def _embedding_like(self, device: Device) -> StandardEmbedding:
        return StandardEmbedding(
            self.num_embeddings,
            self.embed_dim,
            self.pad_idx,
            init_fn=self.init_fn,
            device=device,
            dtype=self.weight.dtype,
        )

    @override
    def get_shard_dims(self) -> list[tuple[Parameter, int]]:
        return [(self.weight, 1)]

    @override
    def extra_repr(self) -> str:
        """:meta private:"""
        s = (
            f"tp_rank={self.tp_gang.rank}, "
            f"tp_size={self.tp_gang.size}, "
            f"num_embeddings={self.num_embeddings}, "
            f"embed_dim={self.embed_dim}, "
            f"sharded_embed_dim={self.sharded_embed_dim}"
        )

        if self.init_fn is not None:
            init_fn = get_name_or_self(self.init_fn)

            s = f"{s}, init_fn={init_fn}"

        return s


def _init_embedding(embed: Embedding) -> None:
    m = cast(StandardEmbedding, embed)

    if m.init_fn is not None:
        m.init_fn(m)
    else:
        nn.init.normal_(m.weight)

    if m.pad_idx is not None:
        with torch.no_grad():
            m.weight[m.pad_idx].fill_(0.0)


def init_scaled_embedding(embed: StandardEmbedding) -> None:
    """
    Initializes ``embed`` from :math:`\\mathcal{N}(0, \\frac{1}{\\text{embed_dim}})`.
    """
    nn.init.normal_(embed.weight, std=embed.embed_dim**-0.5)

    if embed.pad_idx is not None:
        with torch.no_grad():
            embed.weight[embed.pad_idx].fill_(0.0)
