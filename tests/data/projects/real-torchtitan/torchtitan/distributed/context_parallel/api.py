# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from collections.abc import Sequence
from typing import Any, cast

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.device_mesh import DeviceMesh
from torch.distributed.tensor import DTensor, Shard
from torch.distributed.tensor.experimental._attention import (
    _context_parallel_shard,
    _enable_context_parallel_dispatcher,
    _HeadTailLoadBalancer,
    _PTRRLoadBalancer,
)
from torch.distributed.tensor.experimental._context_parallel._attention import (
    flex_cp_allgather,
)
from torch.nn.attention.flex_attention import BlockMask

from torchtitan.models.common.attention import (
    AttentionMasksType,
    FlexAttention,
    ScaledDotProductAttention,
    VarlenAttention,
)
from torchtitan.tools.logging import logger


def apply_cp_to_forward(
    attention_modules: Sequence[nn.Module],
    cp_mesh: DeviceMesh,
) -> None:
    """Wrap inner attention ``forward`` with CP logic.

    Must be called **before** ``Module.parallelize()`` so the CP wrapper
    is captured inside parallelize's ``local_map`` wrapping.

    The attention type is inferred via isinstance on the first module.

    TODO: This is a temporary workaround that manually allgathers K/V
    (FlexAttention) or wraps inputs as CP-sharded DTensors (SDPA).
    Once all models adopt config-based sharding with full DTensor,
    CP redistribution should be expressed declaratively via
    ShardingConfig and this function should be removed.

    Args:
        attention_modules: Sequence of inner attention modules to apply CP to.
        cp_mesh: Device mesh for context parallel dimension.
    """
    first = attention_modules[0]
    if isinstance(first, FlexAttention):
        for mod in attention_modules:
            original_forward = mod.forward

            def _make_cp_forward(orig_fn, mesh):
                pg_name = dist._get_process_group_name(mesh.get_group())

                def cp_forward(q, k, v, **kwargs):
                    if kwargs.get("score_mod") is not None:
                        raise NotImplementedError(
                            "FlexAttention score_mod is not supported with "
                            "Context Parallel yet. It must be sharded before "
                            "use with CP."
                        )
                    k = k.contiguous()
                    v = v.contiguous()
                    global_k, global_v = flex_cp_allgather(k, v, 1, pg_name)
                    return orig_fn(q, global_k, global_v, **kwargs)

                return cp_forward

            mod.forward = _make_cp_forward(original_forward, cp_mesh)

    elif isinstance(first, ScaledDotProductAttention):
        _enable_context_parallel_dispatcher()

        for mod in attention_modules:
            original_forward = mod.forward

            def _make_cp_forward(orig_fn, mesh):
                placement = [Shard(1)]

                def cp_forward(q, k, v, **kwargs):
                    if not isinstance(q, DTensor):
                        q = DTensor.from_local(q, mesh, placement, run_check=False)
                    if not isinstance(k, DTensor):
                        k = DTensor.from_local(k, mesh, placement, run_check=False)
                    if not isinstance(v, DTensor):
                        v = DTensor.from_local(v, mesh, placement, run_check=False)
                    output = orig_fn(q, k, v, **kwargs)
                    return output.to_local() if isinstance(output, DTensor) else output

                return cp_forward

            mod.forward = _make_cp_forward(original_forward, cp_mesh)

    elif isinstance(first, VarlenAttention):
        raise NotImplementedError("Variable-length attention CP is not yet supported")
    else:
        raise NotImplementedError(
            f"Context Parallel forward wrapping is not supported for "
            f"{type(first).__name__}"
        )

    logger.info("Applied Context Parallel (forward wrapping) to the model")


def prepare_context_parallel_input(
    inputs: torch.Tensor,
    labels: torch.Tensor,
    extra_kwargs: dict[str, Any],
    cp_mesh: DeviceMesh,
    device: torch.device,
    load_balancer_type: str | None = "headtail",
    ptrr_mask_key: str | None = None,
) -> tuple[torch.Tensor, torch.Tensor, dict[str, Any]]:
    """
    Shard inputs, labels, positions, and attention masks for Context Parallel.

    The caller must provide ``extra_kwargs["positions"]`` before calling this
    function.  Position resolution (per-document vs sequential) is handled
    upstream in ``post_dataloading_process``.

    Args:
        inputs: Input tensor of shape [batch_size, seq_len]
        labels: Label tensor of shape [batch_size, seq_len]
        extra_kwargs: Dictionary containing 'positions' (required) and
            optionally 'attention_masks' to be sharded.
        cp_mesh: Device mesh for context parallel dimension
        device: Device for the tensors
        load_balancer_type: Type of load balancer to use for sharding.
            Options: "headtail", "ptrr", or None. Defaults to "headtail".
        ptrr_mask_key: When ``load_balancer_type`` is "ptrr" and the attention
            masks are a dict[str, BlockMask], selects which mask the
            PTRRLoadBalancer is built from. Ignored otherwise.

    Returns:
        Tuple of (sharded_inputs, sharded_labels, updated_extra_kwargs) where:
            - sharded_inputs: Inputs sharded along sequence dimension
            - sharded_labels: Labels sharded along sequence dimension
            - updated_extra_kwargs: Dict with sharded 'positions' and optionally
              sharded 'attention_masks'
    """
    attention_masks = extra_kwargs.get("attention_masks", None)
    positions = extra_kwargs["positions"]
    (inputs, labels, positions), attention_masks = cp_shard(
        cp_mesh,
        (inputs, labels, positions),
        attention_masks,
        load_balancer_type,
        ptrr_mask_key=ptrr_mask_key,
    )
    extra_kwargs["positions"] = positions
    if attention_masks is not None:
        extra_kwargs["attention_masks"] = attention_masks

    return inputs, labels, extra_kwargs


def cp_shard(
    cp_mesh: DeviceMesh,
    inputs: tuple[torch.Tensor, ...],
    attention_masks: AttentionMasksType | None,
    load_balancer_type: str | None = "headtail",
    input_seq_dim: int = 1,
    ptrr_mask_key: str | None = None,
) -> tuple[tuple[torch.Tensor, ...], AttentionMasksType | None]:
    """
    Shard inputs and attention masks across the context parallel mesh.

    This function distributes input tensors across devices in the CP mesh
    along the sequence dimension, enabling efficient processing. It optionally
    uses a load balancer to handle uneven computation workload.

    Args:
        cp_mesh: Device mesh for context parallel dimension
        inputs: Tuple of input tensors to be sharded along the sequence
            dimension
        attention_masks: Attention masks to be sharded. Supports None,
            BlockMask, or dict[str, BlockMask]
        load_balancer_type: Type of load balancer to use. Options:
            - "headtail": Use HeadTailLoadBalancer (for SDPA)
            - "ptrr": Use PTRRLoadBalancer (for FlexAttention)
            - None: Disable load balancing
            Defaults to "headtail".
        input_seq_dim: Sequence dimension index for sharding. Defaults to 1,
            which covers most use cases where tensors have shape
            [batch_size, seq_len]. Can be changed by passing a
            different value if your tensors use a different sequence
            dimension layout.
        ptrr_mask_key: When ``load_balancer_type`` is "ptrr" and
            ``attention_masks`` is a dict[str, BlockMask], selects which mask in
            the dict the PTRRLoadBalancer is built from. The resulting balancer
            is used to shard every mask in the dict as well as the inputs.
            Required (must be a valid key) in that case; ignored otherwise.

    Returns:
        Tuple of (sharded_inputs, attention_masks) where:
            - sharded_inputs: Tuple of input tensors sharded along the
              sequence dimension
            - attention_masks: Sharded attention masks (BlockMask or
              dict[str, BlockMask]) or None

    Raises:
        ValueError: If load_balancer_type is "ptrr" and attention_masks
            is None, or is a dict and ``ptrr_mask_key`` is not a valid key
    """
    seq_len = inputs[0].size(input_seq_dim)
    cp_world_size = cp_mesh.size(0)

    load_balancer = None
    if load_balancer_type:
        match load_balancer_type:
            case "headtail":
                # For SDPA, we use the _HeadTailLoadBalancer.
                load_balancer = _HeadTailLoadBalancer(
                    seq_len, cp_world_size, cp_mesh.device_type
                )
            case "ptrr":
                # For FlexAttention, we use _PTRRLoadBalancer.
                # _PTRRLoadBalancer is built from a single BlockMask. When the
                # attention masks are a dict[str, BlockMask], the caller must
                # specify which mask to build the balancer from via
                # ``ptrr_mask_key``; the resulting balancer is then used to
                # shard every mask in the dict as well as the inputs.
                if attention_masks is None:
                    raise ValueError(
                        "PTRRLoadBalancer requires attention_masks to be a "
                        "BlockMask or dict[str, BlockMask], but got None"
                    )
                if isinstance(attention_masks, dict):
                    if ptrr_mask_key is None:
                        raise ValueError(
                            "PTRRLoadBalancer received a dict[str, BlockMask] "
                            "but no mask key was specified. Set "
                            "--parallelism.context_parallel_ptrr_mask_key to "
                            f"one of: {sorted(attention_masks.keys())}"
                        )
                    if ptrr_mask_key not in attention_masks:
                        raise ValueError(
                            f"context_parallel_ptrr_mask_key '{ptrr_mask_key}' "
                            f"is not a key in attention_masks. Available keys: "
                            f"{sorted(attention_masks.keys())}"
                        )
                    ptrr_mask = attention_masks[ptrr_mask_key]
                else:
                    ptrr_mask = attention_masks
                if not isinstance(ptrr_mask, BlockMask):
                    raise ValueError(
                        f"PTRRLoadBalancer requires the mask to be a "
                        f"BlockMask, but got {type(ptrr_mask)}"
                    )
                load_balancer = _PTRRLoadBalancer(ptrr_mask, cp_world_size)
            case _:
                raise ValueError(
                    f"Invalid load_balancer_type '{load_balancer_type}'. "
                    f"Must be one of: 'headtail', 'ptrr', or None"
                )

    inputs = cast(
        tuple[torch.Tensor, ...],
        _context_parallel_shard(
            mesh=cp_mesh,
            buffers=inputs,
            seq_dims=tuple(input_seq_dim for _ in inputs),
            load_balancer=load_balancer,
        ),
    )

    # BlockMask, has shape, [B, H, Q, KV], and we can only shard
    # on the Q seq dimension, not KV.
    MASK_Q_SEQ_DIM = 2
    if attention_masks is not None:
        assert isinstance(attention_masks, (BlockMask, dict))
        masks: list[BlockMask] = []
        for mask in (
            [attention_masks]
            if isinstance(attention_masks, BlockMask)
            else attention_masks.values()
        ):
            if not isinstance(mask, BlockMask):
                raise ValueError(
                    "Context parallelism can only shard BlockMask attention "
                    f"masks, got {type(mask).__name__} in the mask dict."
                )
            masks.append(mask)
        sharded_masks = _context_parallel_shard(
            mesh=cp_mesh,
            buffers=masks,
            seq_dims=(MASK_Q_SEQ_DIM,) * len(masks),
            load_balancer=load_balancer,
        )
        attention_masks = cast(
            (BlockMask | dict[str, BlockMask]),
            (
                sharded_masks[0]
                if isinstance(attention_masks, BlockMask)
                else {k: v for k, v in zip(attention_masks.keys(), sharded_masks)}
            ),
        )

    return inputs, attention_masks
