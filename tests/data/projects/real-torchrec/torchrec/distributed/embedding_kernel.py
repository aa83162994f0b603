#!/usr/bin/env python3
# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

# pyre-strict

import abc
import copy
import logging
from collections import defaultdict, OrderedDict
from typing import Any, Callable, cast, Dict, List, Optional, Tuple, Union

import torch
import torch.distributed as dist
from fbgemm_gpu.split_table_batched_embeddings_ops_training import (
    SplitTableBatchedEmbeddingBagsCodegen,
)
from fbgemm_gpu.tbe.ssd.utils.partially_materialized_tensor import (
    PartiallyMaterializedTensor,
)
from torch import nn
from torch.distributed._tensor import DTensor
from torchrec.distributed.embedding_types import (
    DTensorMetadata,
    EmbeddingComputeKernel,
    GroupedEmbeddingConfig,
    ShardedEmbeddingTable,
)
from torchrec.distributed.shards_wrapper import LocalShardsWrapper
from torchrec.distributed.types import (
    Shard,
    ShardedTensor,
    ShardedTensorMetadata,
    ShardMetadata,
)
from torchrec.distributed.utils import none_throws
from torchrec.sparse.jagged_tensor import KeyedJaggedTensor

logger: logging.Logger = logging.getLogger(__name__)


class RawIdTrackerWrapper:
    __slots__ = ("get_indexed_lookups", "delete")

    def __init__(
        self,
        get_indexed_lookups: Callable[
            [List[str], Optional[str]],
            Dict[str, List[torch.Tensor]],
        ],
        delete: Callable[
            [int],
            None,
        ],
    ) -> None:
        self.get_indexed_lookups = get_indexed_lookups
        self.delete = delete


class BaseEmbedding(abc.ABC, nn.Module):
    """
    Abstract base class for grouped `nn.Embedding` and `nn.EmbeddingBag`
    """

    def __init__(self) -> None:
        super().__init__()
        self._raw_id_tracker_wrapper: Optional[RawIdTrackerWrapper] = None

    @abc.abstractmethod
    def forward(
        self,
        features: KeyedJaggedTensor,
    ) -> torch.Tensor:
        """
        Args:
            features (KeyedJaggedTensor):
        Returns:
            torch.Tensor: sparse gradient parameter names.
        """
        pass

    @property
    @abc.abstractmethod
    def config(self) -> GroupedEmbeddingConfig:
        pass

    def init_raw_id_tracker(
        self,
        get_indexed_lookups: Callable[
            [List[str], Optional[str]],
            Dict[str, List[torch.Tensor]],
        ],
        delete: Callable[
            [int],
            None,
        ],
    ) -> None:
        """
        Initialize raw ID tracker for hash-based zero collision handling.

        Args:
            get_indexed_lookups: Callable to retrieve indexed lookups
            delete: Callable to delete tracked data
        """
        if isinstance(self._emb_module, SplitTableBatchedEmbeddingBagsCodegen):
            self._raw_id_tracker_wrapper = RawIdTrackerWrapper(
                get_indexed_lookups, delete
            )

    def _get_hash_zch_identities_and_metadata(
        self, features: KeyedJaggedTensor
    ) -> Optional[Tuple[torch.Tensor, Optional[torch.Tensor]]]:
        if self._raw_id_tracker_wrapper is None or not isinstance(
            self.emb_module, SplitTableBatchedEmbeddingBagsCodegen
        ):
            return None

        # pyrefly: ignore[redundant-cast]
        emb_module = cast(SplitTableBatchedEmbeddingBagsCodegen, self.emb_module)
        raw_id_tracker_wrapper = self._raw_id_tracker_wrapper
        assert (
            raw_id_tracker_wrapper is not None
        ), "self._raw_id_tracker_wrapper should not be None"
        table_names = emb_module.table_names
        if not table_names:
            return None

        # TODO: get_indexed_lookups() may return multiple IndexedLookup objects
        # across multiple training iterations. Current logic appends raw_ids from
        # all batches sequentially. This may cause misalignment with
        # features.values() which only contains the current batch.
        indexed_lookups_dict = raw_id_tracker_wrapper.get_indexed_lookups(
            table_names, emb_module.uuid
        )

        # Build hash_zch_identities by concatenating raw IDs from tracked tables.
        # Output maintains 1-to-1 alignment with features.values().
        # Iterate through table_names explicitly (not raw_ids_dict.values()) to
        # ensure correct ordering, since there is no guarantee on dict ordering.
        #
        # E.g. If features.values() = [f1_val1, f1_val2, f2_val1, f2_val2, ...]
        #      where table1 has [feature1, feature2] and table2 has [feature3, feature4]
        #      then hash_zch_identities = [f1_id1, f1_id2, f2_id1, f2_id2, ...]
        #
        # TODO: Handle tables without identity tracking. Currently, only tables with
        # raw_ids are included. If some tables lack identity while others have them,
        # padding with -1 may be needed to maintain alignment.
        all_raw_ids = []
        all_runtime_meta = []
        for table_name in table_names:
            if table_name in indexed_lookups_dict:
                raw_ids_list, runtime_meta_list = indexed_lookups_dict[table_name]
                for raw_ids in raw_ids_list:
                    all_raw_ids.append(raw_ids)
                for runtime_meta in runtime_meta_list:
                    all_runtime_meta.append(runtime_meta)

        if not all_raw_ids:
            return None

        hash_zch_identities = torch.cat(all_raw_ids)
        assert hash_zch_identities.size(0) == features.values().numel(), (
            f"hash_zch_identities row count ({hash_zch_identities.size(0)}) must match "
            f"features.values() length ({features.values().numel()}) to maintain 1-to-1 alignment"
        )

        if all_runtime_meta:
            hash_zch_runtime_meta = torch.cat(all_runtime_meta)
            assert hash_zch_runtime_meta.size(0) == hash_zch_identities.size(0), (
                f"hash_zch_runtime_meta row count ({hash_zch_runtime_meta.size(0)}) must match "
                f"hash_zch_identities length ({hash_zch_identities.size(0)}) to maintain 1-to-1 alignment"
            )
            return (hash_zch_identities, hash_zch_runtime_meta)
        else:
            return (hash_zch_identities, None)


def create_virtual_table_local_metadata(
    local_metadata: ShardMetadata,
    param: Union[torch.Tensor, PartiallyMaterializedTensor],
    my_rank: int,
    offset: Optional[int] = None,
    weight_count_per_rank: Optional[List[int]] = None,
) -> None:
    if offset is None:
        offset = (
            my_rank
            if weight_count_per_rank is None
            else sum(weight_count_per_rank[:my_rank])
        )
    # pyrefly: ignore
    local_metadata.shard_sizes = list(param.size())
    # pyrefly: ignore[missing-attribute]
    local_metadata.shard_offsets = [
        offset if dim == 0 else 0
        # pyrefly: ignore[bad-argument-type]
        for dim in range(len(param.size()))
    ]


def create_virtual_table_global_metadata(
    metadata: ShardedTensorMetadata,
    my_rank: int,
    param: Union[torch.Tensor, PartiallyMaterializedTensor],
    weight_count_per_rank: Optional[List[int]],
    use_param_size_as_rows: bool,
) -> None:
    # update tensor properties from local tensor properties, this should be universal for all ranks
    metadata.tensor_properties.dtype = param.dtype
    metadata.tensor_properties.requires_grad = param.requires_grad

    offset = 0
    # Manually craft metadata according to the weight_count_per_rank to set correct
    # metadata for cp loading for non-PMT case, where recalc won't be triggered.
    # Otherwise it will only set correct size on current rank and
    # virtual PMT will trigger recalc for the correct global size/offset.
    # NOTE this currently only works for row-wise sharding
    my_rank_shard_size = metadata.shards_metadata[my_rank].shard_sizes[0]
    for rank, shard_metadata in enumerate(metadata.shards_metadata):
        if use_param_size_as_rows:  # respect the param size and treat it as rows
            # The param size only has the information for my_rank. In order to
            # correctly calculate the size for other ranks, we need to use the current
            # rank's shard size compared to the shard size of my_rank.
            curr_rank_rows = (
                # pyrefly: ignore[bad-index]
                param.size()[0]
                * metadata.shards_metadata[rank].shard_sizes[0]
            ) // my_rank_shard_size
        else:
            curr_rank_rows = (
                weight_count_per_rank[rank] if weight_count_per_rank is not None else 1
            )
        if rank < my_rank:
            # pyrefly: ignore[bad-assignment, missing-attribute]
            shard_metadata.shard_sizes = [
                curr_rank_rows if dim == 0 else param.size(dim)
                # pyrefly: ignore[bad-argument-type]
                for dim in range(len(param.size()))
            ]
            # pyrefly: ignore[missing-attribute]
            shard_metadata.shard_offsets = [
                offset if dim == 0 else 0
                # pyrefly: ignore[bad-argument-type]
                for dim in range(len(param.size()))
            ]
        elif rank == my_rank:
            # pyrefly: ignore[bad-index]
            curr_rank_rows = param.size()[0]
            create_virtual_table_local_metadata(shard_metadata, param, my_rank, offset)
        else:
            # pyrefly: ignore[bad-assignment, missing-attribute]
            shard_metadata.shard_sizes = [
                curr_rank_rows if dim == 0 else param.size(dim)
                # pyrefly: ignore[bad-argument-type]
                for dim in range(len(param.size()))
            ]
            # pyrefly: ignore[missing-attribute]
            shard_metadata.shard_offsets = [
                offset if dim == 0 else 0
                # pyrefly: ignore[bad-argument-type]
                for dim in range(len(param.size()))
            ]
        offset += curr_rank_rows

    metadata.size = torch.Size(
        # pyrefly: ignore[bad-argument-type]
        [offset if dim == 0 else param.size(dim) for dim in range(len(param.size()))]
    )


def create_virtual_sharded_tensors(
    embedding_tables: List[ShardedEmbeddingTable],
    params: Union[List[torch.Tensor], List[PartiallyMaterializedTensor]],
    pg: Optional[dist.ProcessGroup] = None,
    prefix: str = "",
    table_name_to_weight_count_per_rank: Optional[Dict[str, List[int]]] = None,
    use_param_size_as_rows: bool = False,
) -> List[ShardedTensor]:
    """
    Create virtual sharded tensors for the given embedding tables and parameters.
    This is used to create sharded tensor for virtual table, where the table rows changes dynamically
    everytime we call ec/ebc state_dict, we will create a ShardedTensor and recalculate the metadata by
    all_gather, however since we don't want to put all_gather implicitly inside state_dict, we need to
    create a ShardedTensor temporarily and return it to the caller side to do the metadata recalculation work

    Here for the local shard tensor, we just fake zero sizes on the remote shards' metadata
    for this shard's ShardedTensor
    """
    key_to_local_shards: Dict[str, List[Shard]] = defaultdict(list)
    key_to_global_metadata: Dict[str, ShardedTensorMetadata] = {}

    def get_key_from_embedding_table(embedding_table: ShardedEmbeddingTable) -> str:
        return prefix + f"{embedding_table.name}"

    def get_weight_count_per_rank(table_name: str) -> Optional[List[int]]:
        return (
            table_name_to_weight_count_per_rank.get(table_name, None)
            if table_name_to_weight_count_per_rank
            and table_name in table_name_to_weight_count_per_rank.keys()
            else None
        )

    my_rank = dist.get_rank()
    for embedding_table, param in zip(embedding_tables, params):
        key = get_key_from_embedding_table(embedding_table)
        assert embedding_table.use_virtual_table

        assert embedding_table.global_metadata is not None
        global_metadata = copy.deepcopy(embedding_table.global_metadata)
        weight_count_per_rank = get_weight_count_per_rank(embedding_table.name)
        create_virtual_table_global_metadata(
            global_metadata,
            my_rank,
            param,
            weight_count_per_rank,
            use_param_size_as_rows,
        )
        key_to_global_metadata[key] = global_metadata

        local_metadata = copy.deepcopy(global_metadata.shards_metadata[my_rank])
        # pyrefly: ignore[missing-attribute]
        local_metadata.placement = none_throws(
            none_throws(
                embedding_table.local_metadata,
                f"local_metadata is None for emb_table: {embedding_table.name}",
            ).placement,
            f"placement is None for local_metadata of emb table: {embedding_table.name}",
        )

        # pyrefly: ignore[bad-argument-type]
        key_to_local_shards[key].append(Shard(param, local_metadata))

    result: List[ShardedTensor] = []
    if pg is not None:
        for key in key_to_local_shards:
            global_metadata = key_to_global_metadata[key]
            result.append(
                ShardedTensor._init_from_local_shards_and_global_metadata(
                    local_shards=key_to_local_shards[key],
                    sharded_tensor_metadata=global_metadata,
                    process_group=pg,
                )
            )
    return result


def get_state_dict(
    embedding_tables: List[ShardedEmbeddingTable],
    params: Union[
        nn.ModuleList,
        List[Union[nn.Module, torch.Tensor]],
        List[torch.Tensor],
        List[Tuple[torch.Tensor, Optional[torch.Tensor], Optional[torch.Tensor]]],
        List[PartiallyMaterializedTensor],
    ],
    pg: Optional[dist.ProcessGroup] = None,
    destination: Optional[Dict[str, Any]] = None,
    prefix: str = "",
) -> Dict[str, Any]:
    if destination is None:
        destination = OrderedDict()
        # pyrefly: ignore[missing-attribute]
        destination._metadata = OrderedDict()
    """
    It is possible for there to be multiple shards from a table on a single rank.
    We accumulate them in key_to_local_shards. Repeat shards should have identical
    global ShardedTensorMetadata.
    """
    key_to_local_shards: Dict[str, List[Shard]] = defaultdict(list)
    key_to_global_metadata: Dict[str, ShardedTensorMetadata] = {}
    key_to_dtensor_metadata: Dict[str, DTensorMetadata] = {}
    key_to_local_tensor_shards: Dict[str, List[Any]] = defaultdict(list)

    # validate on the function input for kv zch cases
    use_virtual_size = None
    # pyrefly: ignore[bad-assignment]
    for emb_table in embedding_tables:
        if use_virtual_size is None:
            use_virtual_size = emb_table.use_virtual_table
        assert use_virtual_size == emb_table.use_virtual_table

    def get_key_from_embedding_table(embedding_table: ShardedEmbeddingTable) -> str:
        return prefix + f"{embedding_table.name}.weight"

    for embedding_table, param in zip(embedding_tables, params):
        weights_key = get_key_from_embedding_table(embedding_table)
        is_quant = embedding_table.compute_kernel in [
            EmbeddingComputeKernel.QUANT,
            EmbeddingComputeKernel.QUANT_UVM,
            EmbeddingComputeKernel.QUANT_UVM_CACHING,
        ]
        qscale = None
        qbias = None
        if is_quant:
            # For QUANT* param is Tuple[torch.Tensor, Optional[torch.Tensor]] where first argument is
            # the weight table, the second is optional quantization extra information, depending on
            # quantization type. e.g. for fbgemm rowwise quantization this is scale and shift for each row.
            assert isinstance(param, tuple)
            qscale = param[1]
            qbias = param[2]
            param = param[0]

        if not embedding_table.use_virtual_table:
            # pyrefly: ignore[missing-attribute]
            assert embedding_table.local_rows == param.size(
                0
                # pyrefly: ignore[missing-attribute]
            ), f"{embedding_table.local_rows=}, {param.size(0)=}, {param.shape=}"

        if qscale is not None:
            # pyrefly: ignore[missing-attribute]
            assert embedding_table.local_cols == param.size(1)

        if embedding_table.dtensor_metadata is not None and pg is not None:
            # DTensor path
            key_to_dtensor_metadata[weights_key] = embedding_table.dtensor_metadata
            key_to_local_tensor_shards[weights_key].append(
                [
                    param,
                    # pyrefly: ignore[missing-attribute]
                    embedding_table.local_metadata.shard_offsets,
                ]
            )
        elif embedding_table.global_metadata is not None and pg is not None:
            # set additional field of sharded tensor based on local tensor properties
            # pyrefly: ignore[missing-attribute]
            embedding_table.global_metadata.tensor_properties.dtype = param.dtype
            embedding_table.global_metadata.tensor_properties.requires_grad = (
                # pyrefly: ignore[missing-attribute]
                param.requires_grad
            )
            local_metadata = embedding_table.local_metadata
            glb_metadata = embedding_table.global_metadata
            if use_virtual_size:
                assert local_metadata is not None and glb_metadata is not None
                local_metadata = copy.deepcopy(embedding_table.local_metadata)
                # pyrefly: ignore[missing-attribute]
                local_metadata.shard_sizes = list(param.size())
                # pyrefly: ignore[missing-attribute]
                local_metadata.shard_offsets = [0, 0]

                glb_metadata = copy.deepcopy(embedding_table.global_metadata)
                # pyrefly: ignore[missing-attribute]
                glb_metadata.size = param.size()
                my_rank = dist.get_rank()
                for rank, shards_metadata in enumerate(glb_metadata.shards_metadata):
                    if rank < my_rank:
                        # pyrefly: ignore[missing-attribute]
                        shards_metadata.shard_offsets = [0, 0]
                        # pyrefly: ignore[missing-attribute]
                        shards_metadata.shard_sizes = [0, 0]
                    elif rank == my_rank:
                        # pyrefly: ignore[missing-attribute]
                        shards_metadata.shard_offsets = local_metadata.shard_offsets
                        # pyrefly: ignore[missing-attribute]
                        shards_metadata.shard_sizes = local_metadata.shard_sizes
                    else:
                        # pyrefly: ignore[missing-attribute]
                        shards_metadata.shard_offsets = [
                            # pyrefly: ignore[missing-attribute]
                            local_metadata.shard_sizes[0],
                            0,
                        ]
                        # pyrefly: ignore[missing-attribute]
                        shards_metadata.shard_sizes = [0, 0]

            key_to_global_metadata[weights_key] = glb_metadata

            # for kv zch cases, we use virtual space, the logic will be the same as non-kv zch cases
            key_to_local_shards[weights_key].append(
                #  `Union[Module, Tensor]`.
                #  `Optional[ShardMetadata]`.
                # pyrefly: ignore[bad-argument-type]
                Shard(param, local_metadata)
            )

        else:
            destination[weights_key] = param
            if qscale is not None:
                destination[f"{weights_key}_qscale"] = qscale
            if qbias is not None:
                destination[f"{weights_key}_qbias"] = qbias

    if pg is not None:
        # Populate the remaining destinations that have a global metadata
        for key in key_to_local_shards:
            global_metadata = key_to_global_metadata[key]
            destination[key] = (
                ShardedTensor._init_from_local_shards_and_global_metadata(
                    local_shards=key_to_local_shards[key],
                    sharded_tensor_metadata=global_metadata,
                    process_group=pg,
                )
            )
        # DTensor path
        for key in key_to_local_tensor_shards:
            dtensor_metadata = key_to_dtensor_metadata[key]
            destination[key] = DTensor.from_local(
                # pyrefly: ignore[no-matching-overload]
                local_tensor=LocalShardsWrapper(
                    local_shards=[
                        tensor_shards[0]
                        for tensor_shards in key_to_local_tensor_shards[key]
                    ],
                    local_offsets=[
                        tensor_shards[1]
                        for tensor_shards in key_to_local_tensor_shards[key]
                    ],
                ),
                device_mesh=dtensor_metadata.mesh,
                placements=dtensor_metadata.placements,
                # pyrefly: ignore[bad-argument-type]
                shape=torch.Size(dtensor_metadata.size),
                stride=dtensor_metadata.stride,
                run_check=False,
            )
    return destination
