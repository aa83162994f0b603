# Copyright (c) 2026, Jingze Shi.
# Copyright (c) 2025, Jay Shah, Ganesh Bikshandi, Ying Zhang, Vijay Thakkar, Pradeep Ramani, Tri Dao.
# [2025-07-04] Version in Cute-DSL, for Hopper and Blackwell. You'll need install nvidia-cutlass-dsl==4.2.0.

import os
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional, Tuple, Callable

import torch


import cutlass
import cutlass.cute as cute
from cutlass import Int32, Float32
from quack.compile_utils import make_fake_tensor as fake_tensor
from flash_sparse_attn.ops.cute.cache_utils import get_jit_cache
from flash_sparse_attn.ops.cute.testing import is_fake_mode


if os.environ.get("CUTE_DSL_PTXAS_PATH", None) is not None:
    from flash_sparse_attn.ops.cute import cute_dsl_ptxas  # noqa: F401

    # Patch to dump ptx and then use system ptxas to compile to cubin
    cute_dsl_ptxas.patch()


from flash_sparse_attn.ops.cute import utils
from flash_sparse_attn.ops.cute import fa_logging
from flash_sparse_attn.ops.cute.cute_dsl_utils import (
    get_aux_tensor_metadata,
    get_broadcast_dims,
    get_num_sms_for_selection,
    maybe_contiguous,
    to_cute_aux_tensor,
    to_cute_tensor,
    validate_output_layout,
)
from flash_sparse_attn.ops.cute.flash_fwd import (
    FlashSparseAttentionForwardSm80,
)
from flash_sparse_attn.ops.cute.flash_fwd_sm90 import FlashSparseAttentionForwardSm90
from flash_sparse_attn.ops.cute.flash_fwd_sm100 import FlashAttentionForwardSm100, DescaleTensors
from flash_sparse_attn.ops.cute.flash_fwd_sm120 import (
    FlashSparseAttentionForwardSm120,
)
from flash_sparse_attn.ops.cute.flash_bwd_preprocess import FlashAttentionBackwardPreprocess
from flash_sparse_attn.ops.cute.flash_bwd import (
    FlashSparseAttentionBackwardSm80,
)
from flash_sparse_attn.ops.cute.flash_bwd_sm90 import FlashSparseAttentionBackwardSm90
from flash_sparse_attn.ops.cute.flash_bwd_sm100 import FlashAttentionBackwardSm100
from flash_sparse_attn.ops.cute.flash_bwd_sm120 import (
    FlashSparseAttentionBackwardSm120,
)
from flash_sparse_attn.ops.cute.flash_bwd_postprocess import (
    FlashAttentionBackwardPostprocess,
    LearnableSinkBwdTensors,
)
from flash_sparse_attn.ops.cute.flash_fwd_combine import FlashAttentionForwardCombine
from flash_sparse_attn.ops.cute.prepare_scheduler import (
    FlashPrepareScheduler,
    SchedulerMetadataTensorsTorch,
)
from flash_sparse_attn.ops.cute.cu_blocks_kernel import (
    CuSeqlensToBlocksKernel,
    CuBlocksToBatchKernel,
)

from flash_sparse_attn.ops.cute.utils import AuxData
from flash_sparse_attn.ops.cute.block_sparsity import (
    BlockSparseTensorsTorch,
    block_sparse_bwd_supports_2cta,
    get_kv_subtile_factor,
    get_sparse_q_block_size,
    to_cute_block_sparse_tensors,
    normalize_block_sparse_config,
    normalize_block_sparse_config_bwd,
)

BIN_BATCH_SEARCH_THRESH = (
    256  # above this batch size SingleTileVarlenScheduler gets a batch-lookup aid
)
# Where the cu hint applies, use an O(1) flat-block -> batch lookup instead of the binary search.
USE_BLOCKS_TO_BATCH: bool = True


def _parse_arch_str(arch_str):
    """Parse arch string (e.g. 'sm_80', 'sm_90a', '80', '100') to int (e.g. 80, 90, 100)."""
    import re

    match = re.match(r"^(?:sm_?|SM_?)?(\d+)(\d)([af]?)$", arch_str)
    if not match:
        raise ValueError(f"Invalid arch format: {arch_str}")
    major, minor, _ = match.groups()
    return int(major) * 10 + int(minor)


@lru_cache(maxsize=None)
def _get_device_arch():
    """Cached device arch check.

    Override with FLASH_ATTENTION_ARCH (e.g. 'sm_80' or '80') to select which
    kernel path to use (SM80/SM90/SM100/SM120) independently of the compilation
    target (CUTE_DSL_ARCH).

    For CPU-only compilation (no GPU), set:
      FLASH_ATTENTION_ARCH=sm_80  (kernel selection)
      CUTE_DSL_ARCH=sm_80         (compilation target)
      FLASH_ATTENTION_NUM_SMS=132 (target-SKU selector metadata)
    """
    arch_override = os.environ.get("FLASH_ATTENTION_ARCH", None)
    if arch_override is not None:
        return _parse_arch_str(arch_override)
    major, minor = torch.cuda.get_device_capability()
    return major * 10 + int(minor)


@lru_cache(maxsize=None)
def _validate_head_dims(head_dim: int, compute_capability: int, alignment: int) -> None:
    """Validate head dimension constraints based on compute capability."""
    is_standard_range = 8 <= head_dim <= 128
    is_sm90_range = 8 <= head_dim <= 256
    if compute_capability == 9:
        assert is_sm90_range and head_dim % alignment == 0, (
            f"head_dim={head_dim} is not supported on SM90. "
            f"head_dim must be between 8 and 256 and divisible by {alignment}."
        )
    elif compute_capability in [10, 11]:
        assert is_standard_range and head_dim % alignment == 0, (
            f"head_dim={head_dim} is not supported on SM100/SM110. "
            f"head_dim must be between 8 and 128 and divisible by {alignment}."
        )


@dataclass(frozen=True)
class FwdConfig:
    m_block_size: int
    n_block_size: int
    mma_pv_is_rs: bool
    intra_wg_overlap: bool
    q_stage: int = 1
    num_splits: int = 1


def _tile_size_fwd_sm90(head_dim, is_causal, is_local, sparse_block_size_q=None):
    """Return FwdConfig for SM90 forward.

    Tile sizes and flags based on tile_size_fwd_sm90 in hopper/tile_size.h, adjusted
    for the Python kernel's different register/smem tradeoffs (benchmarked on H100 SXM).

    When sparse_block_size_q is set, tile_m must divide it. For head_dim <= 96 the
    optimal tile_m=192 is used when compatible, otherwise we fall back to 128.
    """
    if head_dim <= 64:
        # C++: 192×192 non-causal, 192×128 causal/local.
        # Python: 192×128 RS+OL is consistently best across seqlens.
        if sparse_block_size_q is not None and sparse_block_size_q % 192 != 0:
            return FwdConfig(128, 128, True, True)
        return FwdConfig(192, 128, True, True)
    elif head_dim <= 96:
        # C++: 192×144 noRS+OL for all cases.
        # Python: RS is catastrophic with 192× tiles (~300 vs ~600 TFLOPS).
        # noRS+OL is always required. Causal: 192×128 slightly better short seqlen.
        if sparse_block_size_q is not None and sparse_block_size_q % 192 != 0:
            return FwdConfig(128, 128, False, True)
        if is_causal or is_local:
            return FwdConfig(192, 128, False, True)
        else:
            return FwdConfig(192, 144, False, True)
    elif head_dim <= 128:
        return FwdConfig(128, 128, True, True)
    elif head_dim <= 192:
        tile_n = 96 if is_local else 112
        return FwdConfig(128, tile_n, True, True)
    else:  # hdim 256
        tile_n = 64 if is_local else 80
        return FwdConfig(128, tile_n, True, True)


@dataclass(frozen=True)
class BwdConfig:
    m_block_size: int
    n_block_size: int
    num_stages_Q: int
    num_stages_PdS: int
    SdP_swapAB: bool
    dKV_swapAB: bool
    dQ_swapAB: bool
    AtomLayoutMSdP: int
    AtomLayoutNdKV: int
    AtomLayoutMdQ: int
    num_wg: int = 2  # MMA warp groups (total threads = (num_wg + 1) * 128)
    dQ_single_wg: bool = False


def _tile_size_bwd_sm90(head_dim, causal, local, sparse_block_size_q=None):
    """Return BwdConfig for SM90.

    Configs based on C++ FA3 hopper/flash_bwd_launch_template.h,
    benchmarked on H100 SXM.
    """
    if head_dim <= 64:
        # C++ FA3: 128, 128, 64, ..., 2, 2, true, false, false, 2, 1, 2, 2
        return BwdConfig(
            m_block_size=128,
            n_block_size=128,
            num_stages_Q=2,
            num_stages_PdS=2,
            SdP_swapAB=True,
            dKV_swapAB=False,
            dQ_swapAB=False,
            AtomLayoutMSdP=1,
            AtomLayoutNdKV=2,
            AtomLayoutMdQ=2,
        )
    elif head_dim <= 96:
        # C++ FA3: 64, 128, 96, dQ_swapAB=False
        return BwdConfig(
            m_block_size=64,
            n_block_size=128,
            num_stages_Q=2,
            num_stages_PdS=2,
            SdP_swapAB=True,
            dKV_swapAB=False,
            dQ_swapAB=False,
            AtomLayoutMSdP=1,
            AtomLayoutNdKV=2,
            AtomLayoutMdQ=1,
            dQ_single_wg=True,
        )
    elif head_dim <= 128:
        # C++ FA3: causal/local: 64, 128; non-causal: 80, 128 with dQ_swapAB
        is_causal_or_local = causal or local
        m_block_size = 64 if is_causal_or_local else 80
        if sparse_block_size_q is not None and sparse_block_size_q % m_block_size != 0:
            m_block_size = 64
        return BwdConfig(
            m_block_size=m_block_size,
            n_block_size=128,
            num_stages_Q=2,
            num_stages_PdS=2,
            SdP_swapAB=True,
            dKV_swapAB=False,
            dQ_swapAB=m_block_size % 64 != 0,
            AtomLayoutMSdP=1,
            AtomLayoutNdKV=2,
            AtomLayoutMdQ=1,
        )
    elif head_dim <= 192:
        return BwdConfig(
            m_block_size=64,
            n_block_size=96,
            num_stages_Q=2,
            num_stages_PdS=1,
            SdP_swapAB=False,
            dKV_swapAB=True,
            dQ_swapAB=False,
            AtomLayoutMSdP=1,
            AtomLayoutNdKV=2,
            AtomLayoutMdQ=1,
            num_wg=2,
        )
    else:
        # hdim 256
        return BwdConfig(
            m_block_size=64,
            n_block_size=64,
            num_stages_Q=1,
            num_stages_PdS=1,
            SdP_swapAB=False,
            dKV_swapAB=False,
            dQ_swapAB=False,
            AtomLayoutMSdP=1,
            AtomLayoutNdKV=1,
            AtomLayoutMdQ=1,
        )


def _validate_tensor(t, name, expected_shape, expected_dtype, expected_device):
    assert t.shape == expected_shape, f"{name} shape {t.shape} != expected {expected_shape}"
    assert t.dtype == expected_dtype, f"{name} dtype {t.dtype} != expected {expected_dtype}"
    assert t.device == expected_device, f"{name} device {t.device} != expected {expected_device}"
    assert t.is_cuda, f"{name} must be on CUDA"


torch2cute_dtype_map = {
    torch.float16: cutlass.Float16,
    torch.bfloat16: cutlass.BFloat16,
    torch.float32: cutlass.Float32,
    torch.float8_e4m3fn: cutlass.Float8E4M3FN,
    torch.float8_e5m2: cutlass.Float8E5M2,
}

_LEARNABLE_SINK_DTYPES = (torch.float16, torch.bfloat16, torch.float32)


def num_splits_heuristic(total_mblocks, num_SMs, num_n_blocks, max_splits):
    # If num_n_blocks is too small, use 1 split. For example, we never split for hdim = 128 and seqlen_k = 512.
    if num_n_blocks <= 4:
        return 1
    # Avoid ZeroDivisionError when batch_size or seqlen_q is 0. The empty-Q
    # early-exit in _flash_attn_fwd handles correctness for those shapes; this
    # guard just keeps the heuristic safe if called in other contexts.
    if total_mblocks == 0:
        return 1

    # NOTE: We should revisit this heuristic after persistence is supported for split KV.
    # Sometimes, it's ideal to over-schedule splits for better efficiency.
    return min(num_SMs // total_mblocks, max_splits, num_n_blocks)


def _get_fwd_config(
    *,
    arch: int,
    head_dim: int,
    max_seqlen_q: int,
    max_seqlen_k: int,
    num_head_kv: int,
    qhead_per_kvhead: int,
    pack_gqa: bool,
    batch_size: int,
    causal: bool,
    local: bool,
    window_size_left: Optional[int],
    window_size_right: Optional[int],
    num_splits: int,
    device,
    seqlen_q: Optional[int] = None,
    tile_mn: Optional[Tuple[int, int]] = None,
    block_sparse_tensors: Optional[BlockSparseTensorsTorch] = None,
    mma_pv_is_rs: Optional[bool] = None,
    intra_wg_overlap: Optional[bool] = None,
) -> FwdConfig:
    if seqlen_q is None:
        seqlen_q = max_seqlen_q

    # Base tile sizes and flags: explicit override, else per-arch heuristic.
    cfg = FwdConfig(128, 128, True, True)
    if tile_mn is None:
        if arch // 10 == 12:
            if head_dim > 64:
                cfg = FwdConfig(128, 64, True, True)
        elif arch // 10 == 8:
            cfg = FwdConfig(128, 64, True, True)  # SM80, should tune
        elif arch // 10 == 9:
            sparse_q = get_sparse_q_block_size(block_sparse_tensors, seqlen_q)
            cfg = _tile_size_fwd_sm90(head_dim, causal, local, sparse_block_size_q=sparse_q)
    else:
        cfg = FwdConfig(tile_mn[0], tile_mn[1], cfg.mma_pv_is_rs, cfg.intra_wg_overlap)

    tile_m, tile_n = cfg.m_block_size, cfg.n_block_size
    if mma_pv_is_rs is None:
        mma_pv_is_rs = cfg.mma_pv_is_rs
    if intra_wg_overlap is None:
        intra_wg_overlap = cfg.intra_wg_overlap

    seqlen_q_packgqa = max_seqlen_q * (qhead_per_kvhead if pack_gqa else 1)
    if arch // 10 in [10, 11]:
        q_stage = 2 if seqlen_q_packgqa > tile_m else 1
    else:
        q_stage = 1

    m_block_size_effective = q_stage * tile_m
    seqlen_k_loaded = (
        max_seqlen_k
        if not local
        else max(
            0,
            min(
                max_seqlen_k,
                (window_size_right or max_seqlen_k)
                + (window_size_left or max_seqlen_k)
                + 1
                + tile_m,
            ),
        )
    )
    num_m_blocks = (seqlen_q_packgqa + m_block_size_effective - 1) // m_block_size_effective
    total_mblocks = batch_size * num_head_kv * num_m_blocks
    num_n_blocks = (seqlen_k_loaded + tile_n - 1) // tile_n
    num_SMs = None
    if arch // 10 == 12:
        assert num_splits == 1, "SM120 forward only supports num_splits=1"
    elif num_splits < 1:
        num_SMs = get_num_sms_for_selection(device.index, arch)
        num_splits = num_splits_heuristic(total_mblocks, num_SMs, num_n_blocks, 128)

    return FwdConfig(tile_m, tile_n, mma_pv_is_rs, intra_wg_overlap, q_stage, num_splits)


@lru_cache(maxsize=4096)
def window_sizes_heuristic(
    seqlen_k: int,
    num_heads_kv: int,
    device: torch.device,
    equal_bandwidth: bool = True,
    window_near: int = 1024,
    window_sink: int = 64,
    num_heads_kv_global: Optional[int] = None,
    tp_rank: Optional[int] = None,
    tp_size: Optional[int] = None,
) -> torch.Tensor:
    """
    Compute token count window sizes that partition non-diagonal causal distances into bands.

    :param seqlen_k: Sequence length of keys.
    :param num_heads_kv: Number of local KV heads on this rank.
    :param device: Target device.
    :param equal_bandwidth: If True, use equal-bandwidth partitioning for balanced decode load. If False, use equal-area partitioning for balanced forward and backward load.
    :param window_near: Near-diagonal token count shared by all KV heads.
    :param window_sink: Sink token count shared by all KV heads.
    :param num_heads_kv_global: Total KV heads across all TP ranks.
    :param tp_rank: Tensor parallel rank of this process.
    :param tp_size: Tensor parallel world size.

    :return: int32 tensor with shape [num_heads_kv, 4], columns are [window_sink, window_left, window_right, window_near]. window_sink is the prefix sink token count, window_left is the distant band token count, window_right is the token count gap after the near-diagonal window before the distant band, and window_near is the near-diagonal token count.
    """
    if num_heads_kv_global is None:
        num_heads_kv_global = num_heads_kv

    if tp_size is not None and tp_size > num_heads_kv_global:
        # Calculate how many ranks share each KV head
        ranks_per_kv_group = tp_size // num_heads_kv_global
        # Map tp_rank to the logical KV head group index
        logical_kv_head_group = (tp_rank or 0) // ranks_per_kv_group
        head_offset = logical_kv_head_group * num_heads_kv
    else:
        head_offset = (tp_rank or 0) * num_heads_kv

    head_kv_idx = torch.arange(num_heads_kv + 1, dtype=torch.float32) + head_offset
    window_near = min(max(window_near, 0), seqlen_k)
    window_sink = min(max(window_sink, 0), max(seqlen_k - window_near, 0))
    distance_span = max(seqlen_k - window_sink - window_near, 0)
    if equal_bandwidth:
        breakpoints = (distance_span * head_kv_idx / num_heads_kv_global).to(torch.int32)
    else:
        breakpoints = (
            distance_span * (1.0 - torch.sqrt(1.0 - head_kv_idx / num_heads_kv_global))
        ).to(torch.int32)
    window_size_left = breakpoints[1:] - breakpoints[:-1]
    window_size_right = breakpoints[:-1]
    window_size_near = torch.full_like(window_size_left, window_near)
    window_size_sink = torch.full_like(window_size_left, window_sink)
    return torch.stack(
        [window_size_sink, window_size_left, window_size_right, window_size_near], dim=1
    ).to(device)


def _compute_tile_cumsum(
    *,
    num_m_blocks: Optional[torch.Tensor] = None,
    cu_seqlens: Optional[torch.Tensor] = None,
    seqused: Optional[torch.Tensor] = None,
    num_splits_dynamic: Optional[torch.Tensor] = None,
    virtual_batch_idx: Optional[torch.Tensor] = None,
    tile_size: int = 1,
    q_stage: int = 1,
    cluster_shape_m: int = 1,
    qhead_per_kvhead: int = 1,
    pack_gqa: bool = False,
) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
    """(cu_total_m_blocks, cu_total_splits_m_blocks), int32, (num_batch + 1,).

    cu_total_splits_m_blocks is None when num_splits_dynamic is None.
    """
    assert num_m_blocks is not None or cu_seqlens is not None or seqused is not None, (
        "_compute_tile_cumsum requires num_m_blocks, cu_seqlens, or seqused"
    )
    if num_m_blocks is not None:
        # num_m_blocks is already in tile_size units; feed it through the seqused slot.
        seqused = num_m_blocks
        tile = q_stage * cluster_shape_m
        seqlen_q_multiplier = 1
    else:
        tile = tile_size * q_stage * cluster_shape_m
        seqlen_q_multiplier = qhead_per_kvhead if pack_gqa and qhead_per_kvhead > 1 else 1
    batch_size = seqused.shape[0] if seqused is not None else cu_seqlens.shape[0] - 1
    device = seqused.device if seqused is not None else cu_seqlens.device
    cu_total_m_blocks = torch.empty(batch_size + 1, dtype=torch.int32, device=device)
    cu_total_splits_m_blocks = (
        torch.empty(batch_size + 1, dtype=torch.int32, device=device)
        if num_splits_dynamic is not None
        else None
    )
    compile_key = (
        tile,
        seqlen_q_multiplier,
        cu_seqlens is not None,
        seqused is not None,
        num_splits_dynamic is not None,
        virtual_batch_idx is not None,
    )
    if compile_key not in _compute_tile_cumsum.compile_cache:
        cute_tensors = [
            to_cute_tensor(t, assumed_align=4, leading_dim=0) if t is not None else None
            for t in (
                cu_total_m_blocks,
                cu_total_splits_m_blocks,
                cu_seqlens,
                seqused,
                num_splits_dynamic,
                virtual_batch_idx,
            )
        ]
        _compute_tile_cumsum.compile_cache[compile_key] = cute.compile(
            CuSeqlensToBlocksKernel(tile=tile, seqlen_q_multiplier=seqlen_q_multiplier),
            *cute_tensors,
            cute.runtime.make_fake_stream(use_tvm_ffi_env_stream=True),
            options="--enable-tvm-ffi",
        )
    if not is_fake_mode():
        _compute_tile_cumsum.compile_cache[compile_key](
            cu_total_m_blocks,
            cu_total_splits_m_blocks,
            cu_seqlens,
            seqused,
            num_splits_dynamic,
            virtual_batch_idx,
        )
    return cu_total_m_blocks, cu_total_splits_m_blocks


_compute_tile_cumsum.compile_cache = get_jit_cache("tile_cumsum")


def _blocks_to_batch_size(total_q, num_batch, tile_m, qhead_per_kvhead, pack_gqa):
    """Upper bound on number of m_blocks in a given varlen invocation"""
    seqlen_mult = qhead_per_kvhead if pack_gqa and qhead_per_kvhead > 1 else 1
    return (total_q * seqlen_mult + num_batch * (tile_m - 1)) // tile_m + 1


def _compute_blocks_to_batch(cu_total_blocks, num_blocks, device):
    """Inverted index of _compute_tile_cumsum: flat scheduler block -> batch, int32, (num_blocks,).

    Blocks past the last batch's range map to batch_size (invalid).
    """
    blocks_to_batch = torch.empty(num_blocks, dtype=torch.int32, device=device)
    compile_key = ()
    if compile_key not in _compute_blocks_to_batch.compile_cache:
        cu_total_blocks_tensor, blocks_to_batch_tensor = [
            to_cute_tensor(t, assumed_align=4, leading_dim=0)
            for t in (cu_total_blocks, blocks_to_batch)
        ]
        _compute_blocks_to_batch.compile_cache[compile_key] = cute.compile(
            CuBlocksToBatchKernel(),
            cu_total_blocks_tensor,
            blocks_to_batch_tensor,
            cute.runtime.make_fake_stream(use_tvm_ffi_env_stream=True),
            options="--enable-tvm-ffi",
        )
    if not is_fake_mode():
        _compute_blocks_to_batch.compile_cache[compile_key](cu_total_blocks, blocks_to_batch)
    return blocks_to_batch


_compute_blocks_to_batch.compile_cache = get_jit_cache("blocks_to_batch")


def _flash_attn_fwd(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    cu_seqlens_q: Optional[torch.Tensor] = None,
    cu_seqlens_k: Optional[torch.Tensor] = None,
    seqused_q: Optional[torch.Tensor] = None,
    seqused_k: Optional[torch.Tensor] = None,
    max_seqlen_q: Optional[int] = None,
    max_seqlen_k: Optional[int] = None,
    min_seqlen_k: Optional[int] = None,
    page_table: Optional[torch.Tensor] = None,
    softmax_scale: Optional[float] = None,
    softmax_threshold: Optional[float] = None,
    causal: bool = False,
    softcap: Optional[float] = None,
    window_sizes: Optional[torch.Tensor] = None,
    local: bool = False,
    learnable_sink: Optional[torch.Tensor] = None,
    tile_mn: Optional[Tuple[int, int]] = None,
    mma_pv_is_rs: Optional[bool] = None,
    intra_wg_overlap: Optional[bool] = None,
    num_threads: int = 384,
    num_splits: int = 1,
    pack_gqa: Optional[bool] = None,
    _arch: Optional[int] = None,
    score_mod: Optional[Callable] = None,
    mask_mod: Optional[Callable] = None,
    block_sparse_tensors: Optional[BlockSparseTensorsTorch] = None,
    return_lse: bool = False,
    out: Optional[torch.Tensor] = None,
    lse: Optional[torch.Tensor] = None,
    aux_tensors: Optional[list[torch.Tensor]] = None,
    aux_scalars: Optional[tuple] = None,
    q_descale: Optional[torch.Tensor] = None,
    k_descale: Optional[torch.Tensor] = None,
    v_descale: Optional[torch.Tensor] = None,
    scheduler_metadata: Optional["SchedulerMetadataTensorsTorch"] = None,
    seqlen_k_per_split: Optional[int] = None,
    disable_scheduler_metadata: bool = False,
) -> Tuple[torch.Tensor, torch.Tensor]:
    """Forward pass for FlashAttention.

    Args:
        ...
        score_mod: A callable that takes the attention scores and applies a modification.
        mask_mod: A callable that takes token position information and selectively masks
        block_sparse_tensors: A tuple of tensors used for block sparsity.
        return_lse: Whether to return the log softmax of the attention scores. If set to True will always calculate
            The returned LSE supports taking gradient.
        out: Optional pre-allocated output tensor. If None, will be allocated internally.
        lse: Optional pre-allocated log-sum-exp tensor. If None, will be allocated when needed.
        aux_tensors: Some score_mods will want to read from global aux_tensors. This is how we thread them through to the inner kernel.
        aux_scalars: Runtime scalar captures used by score_mod or mask_mod.
    """
    aux_scalars = tuple(aux_scalars) if aux_scalars else None
    requires_grad = any(t is not None and t.requires_grad for t in (q, k, v, learnable_sink))
    fake_mode = is_fake_mode()
    q, k, v = [maybe_contiguous(t) for t in (q, k, v)]
    q_descale, k_descale, v_descale = [
        maybe_contiguous(t, align_bytes=4) for t in (q_descale, k_descale, v_descale)
    ]
    page_table = maybe_contiguous(page_table, align_bytes=4)
    learnable_sink = maybe_contiguous(learnable_sink, align_bytes=4)
    q_shape = q.shape
    num_head, head_dim = q_shape[-2:]
    if cu_seqlens_q is None:
        batch_size, seqlen_q = q_shape[:2]
        total_q = batch_size * seqlen_q
    else:
        batch_size = cu_seqlens_q.shape[0] - 1
        seqlen_q = None
        total_q = q_shape[0]
    if page_table is not None:
        assert cu_seqlens_k is None, "page_table is not supported with cu_seqlens_k"
        assert page_table.dtype == torch.int32, "page_table must be int32"
        assert page_table.stride(-1) == 1, "page_table must be contiguous in the last dimension"
        max_num_pages_per_seq = page_table.shape[1]
        assert page_table.shape == (batch_size, max_num_pages_per_seq)
        num_pages, page_size = v.shape[:2]
        seqlen_k = num_pages * page_size
    else:
        num_pages, page_size = None, None
        seqlen_k = v.shape[-3]
    num_head_kv = v.shape[-2]
    if cu_seqlens_k is None:
        if page_table is None:
            assert k.shape == (batch_size, seqlen_k, num_head_kv, head_dim)
            assert v.shape == (batch_size, seqlen_k, num_head_kv, head_dim)
        else:
            assert k.shape == (num_pages, page_size, num_head_kv, head_dim)
            assert v.shape == (num_pages, page_size, num_head_kv, head_dim)
    else:
        assert k.shape == (seqlen_k, num_head_kv, head_dim)
        assert v.shape == (seqlen_k, num_head_kv, head_dim)
        assert cu_seqlens_k.shape == (batch_size + 1,), (
            "cu_seqlens_k must have shape (batch_size + 1,)"
        )

    if cu_seqlens_q is not None:
        assert cu_seqlens_q.shape == (batch_size + 1,), (
            "cu_seqlens_q must have shape (batch_size + 1,)"
        )
    assert seqused_q is None or seqused_q.shape == (batch_size,), (
        "seqused_q must have shape (batch_size,)"
    )
    assert seqused_k is None or seqused_k.shape == (batch_size,), (
        "seqused_k must have shape (batch_size,)"
    )
    assert v.dtype in [torch.float16, torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2], (
        "inputs must be float16, bfloat16, fp8 e4m3fn, or fp8 e5m2"
    )

    assert all(t is None or t.dtype == v.dtype for t in (q, k)), "q, k, v must have the same dtype"

    q_dtype = q.dtype

    for t in [cu_seqlens_q, cu_seqlens_k, seqused_q, seqused_k]:
        if t is not None:
            assert t.dtype == torch.int32, (
                "cu_seqlens_q, cu_seqlens_k, seqused_q, seqused_k must be int32"
            )
            assert t.stride(0) == 1, (
                "cu_seqlens_q, cu_seqlens_k, seqused_q, seqused_k must be contiguous"
            )
    if learnable_sink is not None:
        assert learnable_sink.shape == (num_head,)
        assert learnable_sink.dtype in _LEARNABLE_SINK_DTYPES, (
            "learnable_sink must be float16, bfloat16, or float32"
        )

    if not fake_mode:
        assert all(
            t is None or t.is_cuda
            for t in (
                q,
                k,
                v,
                q_descale,
                k_descale,
                v_descale,
                cu_seqlens_q,
                cu_seqlens_k,
                seqused_q,
                seqused_k,
                page_table,
                learnable_sink,
            )
        ), "inputs must be on CUDA device"
    arch = _get_device_arch() if _arch is None else _arch
    # TODO: support 10.x, 11.x for FSA
    assert arch // 10 in [8, 9, 12], (
        "Unsupported compute capability. Supported: 8.x, 9.x, 12.x for FlashSparseAttention yet."
    )
    assert arch // 10 in [8, 9, 10, 11, 12], (
        "Unsupported compute capability. Supported: 8.x, 9.x, 10.x, 11.x, 12.x"
    )
    if arch // 10 in [10, 11] and head_dim == 256:
        raise NotImplementedError("SM100/SM110 forward with head_dim=256 is not supported")
    assert num_head % num_head_kv == 0, "num_head must be divisible by num_head_kv"
    alignment = 16 // v.element_size()
    if arch // 10 not in [8, 12]:
        _validate_head_dims(head_dim, arch // 10, alignment)
    if softmax_scale is None:
        softmax_scale = 1.0 / math.sqrt(head_dim)
    if softcap == 0.0:
        softcap = None
    qhead_per_kvhead = num_head // num_head_kv
    if pack_gqa is None:
        pack_gqa = qhead_per_kvhead > 1

    is_fp8 = v.dtype in (torch.float8_e4m3fn, torch.float8_e5m2)
    if is_fp8 and requires_grad:
        raise NotImplementedError("FA4 CuTe FP8 backward is not supported yet (forward-only).")
    out_torch_dtype = torch.bfloat16 if is_fp8 else q_dtype
    device = v.device
    q_batch_seqlen_shape = (batch_size, seqlen_q) if cu_seqlens_q is None else (total_q,)

    lse_shape = (batch_size, num_head, seqlen_q) if cu_seqlens_q is None else (num_head, total_q)

    if out is None:
        out = torch.empty(
            *q_batch_seqlen_shape, num_head, head_dim, dtype=out_torch_dtype, device=device
        )
    else:
        _validate_tensor(
            out,
            "out",
            (*q_batch_seqlen_shape, num_head, head_dim),
            out_torch_dtype,
            device,
        )
        validate_output_layout(out, "out", align_bytes=16)

    if lse is None:
        lse = (
            torch.empty(lse_shape, dtype=torch.float32, device=device)
            if requires_grad or return_lse
            else None
        )
    elif lse is not None:
        _validate_tensor(lse, "lse", lse_shape, torch.float32, device)
        validate_output_layout(lse, "lse", align_bytes=4)

    if seqlen_k == 0 or total_q == 0:
        out.zero_()
        if lse is not None:
            if learnable_sink is None:
                lse.fill_(float("-inf"))
            else:
                lse.copy_(
                    learnable_sink[None, :, None]
                    if cu_seqlens_q is None
                    else learnable_sink[:, None]
                )
        return out, lse

    if window_sizes is not None:
        window_sizes = window_sizes.contiguous()
        _validate_tensor(
            window_sizes,
            "window_sizes",
            (num_head_kv, 4),
            torch.int32,
            device,
        )

    if is_fp8:
        for t, name in (
            (q_descale, "q_descale"),
            (k_descale, "k_descale"),
            (v_descale, "v_descale"),
        ):
            if t is not None:
                _validate_tensor(
                    t,
                    name,
                    (batch_size, num_head_kv),
                    torch.float32,
                    device,
                )
    else:
        assert q_descale is None and k_descale is None and v_descale is None, (
            "q_descale/k_descale/v_descale are only supported for FP8 inputs"
        )

    dtype = torch2cute_dtype_map[q_dtype]
    if is_fp8:
        assert arch // 10 == 10, (
            "FP8 is only supported on SM100 (compute capability 10.x) for FA4 CuTe."
        )
    use_block_sparsity = block_sparse_tensors is not None

    local = local or window_sizes is not None
    if mask_mod is not None:
        causal, local = False, False

    requested_use_clc_scheduler = utils._get_use_clc_scheduler_default()
    requested_disable_2cta = utils._get_disable_2cta_default(is_fwd=True)

    # SM80/SM120: uses SM80 MMA, 128 threads (4 warps)
    if arch // 10 in [8, 12]:
        num_threads = 128

    if max_seqlen_q is None:
        max_seqlen_q = seqlen_q if cu_seqlens_q is None else total_q
    if max_seqlen_k is None:
        max_seqlen_k = seqlen_k
    if cu_seqlens_k is None and seqused_k is None:
        min_seqlen_k = seqlen_k
    if local and window_sizes is None:
        window_sizes = window_sizes_heuristic(max_seqlen_k, num_head_kv, device)

    fwd_cfg = _get_fwd_config(
        arch=arch,
        head_dim=head_dim,
        causal=causal,
        local=local,
        window_size_left=None,
        window_size_right=None,
        max_seqlen_q=max_seqlen_q,
        max_seqlen_k=max_seqlen_k,
        qhead_per_kvhead=qhead_per_kvhead,
        pack_gqa=pack_gqa,
        batch_size=batch_size,
        num_head_kv=num_head_kv,
        num_splits=num_splits,
        device=device,
        seqlen_q=seqlen_q,
        tile_mn=tile_mn,
        block_sparse_tensors=block_sparse_tensors,
        mma_pv_is_rs=mma_pv_is_rs,
        intra_wg_overlap=intra_wg_overlap,
    )
    tile_m, tile_n = fwd_cfg.m_block_size, fwd_cfg.n_block_size
    q_stage = fwd_cfg.q_stage
    num_splits = fwd_cfg.num_splits
    mma_pv_is_rs = fwd_cfg.mma_pv_is_rs
    intra_wg_overlap = fwd_cfg.intra_wg_overlap

    seqlen_q_packgqa = max_seqlen_q * (qhead_per_kvhead if pack_gqa else 1)
    max_m_blocks_leq_one = seqlen_q_packgqa <= q_stage * tile_m

    is_split_kv = num_splits > 1
    if is_split_kv:
        out_partial = torch.empty(
            num_splits,
            *q_batch_seqlen_shape,
            num_head,
            head_dim,
            dtype=torch.float32,
            device=device,
        )
        lse_partial = torch.empty(num_splits, *lse_shape, dtype=torch.float32, device=device)

    use_2cta_instrs = (
        arch // 10 in [10, 11]
        and not requested_disable_2cta
        and not causal
        and not local
        and not is_split_kv
        and cu_seqlens_q is None
        and seqused_q is None
        and not use_block_sparsity
        and page_size in [None, 128]
        and int(math.ceil(head_dim / 16) * 16) == 128
        and seqlen_q_packgqa > 2 * tile_m
        and (tile_m % qhead_per_kvhead == 0 or not pack_gqa)
    )

    if softcap is not None:
        assert score_mod is None, "softcap and score_mod cannot be used together"
        score_mod = utils.create_softcap_scoremod(softcap)
    elif score_mod is not None:
        if arch // 10 == 8:
            raise NotImplementedError(
                "Custom user-provided score_mod is not supported on SM8x architectures."
            )

    # hash score and mask mods for compile cache
    score_mod_hash = utils.hash_callable(score_mod) if score_mod is not None else False
    mask_mod_hash = utils.hash_callable(mask_mod) if mask_mod is not None else False

    is_varlen = (
        cu_seqlens_q is not None
        or cu_seqlens_k is not None
        or seqused_q is not None
        or seqused_k is not None
    )

    # CLC regressed for varlen MHA and dense noncausal. Imbalanced varlen shapes
    # keep more K/V blocks in flight and hurt L2; dense noncausal mostly just
    # pays work-stealing overhead.
    is_varlen_mha = is_varlen and qhead_per_kvhead == 1
    is_dense_noncausal = not is_varlen and not causal and not local
    use_clc_scheduler = requested_use_clc_scheduler and not is_varlen_mha and not is_dense_noncausal

    if use_block_sparsity:
        # NB: pack_gqa requires block sparse head dim == 1 (broadcasted)
        head_dim_idx = 0 if block_sparse_tensors.mask_block_cnt.ndim == 2 else 1
        if pack_gqa and block_sparse_tensors.mask_block_cnt.shape[head_dim_idx] != 1:
            pack_gqa = False
        if cu_seqlens_q is not None:
            assert block_sparse_tensors.cu_total_m_blocks is not None, (
                "Varlen block sparsity requires block_sparse_tensors.cu_total_m_blocks."
            )
            if block_sparse_tensors.cu_block_idx_offsets is None and (
                cu_seqlens_k is not None or seqused_k is not None
            ):
                raise ValueError(
                    "Varlen block sparsity with cu_seqlens_k or seqused_k requires "
                    "block_sparse_tensors.cu_block_idx_offsets."
                )

    # See get_broadcast_dims for why this is needed in compile key
    block_sparse_broadcast_pattern = None
    normalized_block_sparse_tensors = None
    q_subtile_factor = 1
    kv_subtile_factor = 1
    if block_sparse_tensors is not None:
        block_sparse_config = normalize_block_sparse_config(
            block_sparse_tensors,
            batch_size=batch_size,
            num_head=num_head,
            seqlen_q=seqlen_q,
            seqlen_k=seqlen_k,
            block_size=(tile_m, tile_n),
            q_stage=q_stage,
            allow_kv_subtile=arch // 10 in [10, 11],
        )
        normalized_block_sparse_tensors = block_sparse_config.tensors
        block_sparse_broadcast_pattern = block_sparse_config.broadcast_pattern
        q_subtile_factor = block_sparse_config.q_subtile_factor
        kv_subtile_factor = block_sparse_config.kv_subtile_factor
    if aux_tensors is not None:
        aux_tensor_metadata = get_aux_tensor_metadata(aux_tensors)
    else:
        aux_tensor_metadata = None
    aux_scalar_metadata = tuple(type(s) for s in aux_scalars) if aux_scalars is not None else None

    # Scheduler metadata for SM100/SM110
    reuse_scheduler_metadata = scheduler_metadata is not None
    is_varlen_q = cu_seqlens_q is not None or seqused_q is not None
    cluster_shape_m = 2 if use_2cta_instrs else 1
    use_dedicated_hd256_kernel = False  # Not used in current code, placeholder for future

    if (
        is_split_kv
        and is_varlen_q
        and scheduler_metadata is None
        and not disable_scheduler_metadata
        and not use_dedicated_hd256_kernel
    ):
        scheduler_metadata = _get_scheduler_metadata(
            num_batch=batch_size,
            max_seqlen_q=max_seqlen_q,
            max_seqlen_k=max_seqlen_k,
            nheads=num_head,
            nheads_kv=num_head_kv,
            headdim=head_dim,
            num_splits=num_splits,
            tile_m=tile_m,
            tile_n=tile_n,
            pack_gqa=pack_gqa,
            causal=causal,
            cu_seqlens_q=cu_seqlens_q,
            cu_seqlens_k=cu_seqlens_k,
            seqused_q=seqused_q,
            seqused_k=seqused_k,
            seqlen_k_per_split=seqlen_k_per_split,
            q_stage=q_stage,
            cluster_shape_m=cluster_shape_m,
            total_q=total_q if cu_seqlens_q is not None else None,
            use_clc_scheduler=use_clc_scheduler,
        )

    has_scheduler_metadata = scheduler_metadata is not None and not disable_scheduler_metadata
    if has_scheduler_metadata:
        num_m_blocks = scheduler_metadata.num_m_blocks_ptr
        num_splits_dynamic = scheduler_metadata.num_splits_dynamic_ptr
        virtual_batch_idx = scheduler_metadata.virtual_batch_idx_ptr
        num_nheads_in_l2 = scheduler_metadata.num_nheads_in_l2_ptr
        tile_count_semaphore = scheduler_metadata.tile_count_semaphore
    else:
        num_m_blocks = None
        num_splits_dynamic = None
        virtual_batch_idx = None
        num_nheads_in_l2 = None
        tile_count_semaphore = None

    # Binary batch search hint for varlen
    cu_total_m_blocks = None
    cu_total_splits_m_blocks = None
    blocks_to_batch_idx = None
    use_single_tile_varlen_scheduler = tile_count_semaphore is None
    use_cu_hint = (
        is_varlen_q
        and use_single_tile_varlen_scheduler
        and batch_size > BIN_BATCH_SEARCH_THRESH
        and not use_dedicated_hd256_kernel
    )
    if use_cu_hint and has_scheduler_metadata and scheduler_metadata.cu_total_m_blocks is not None:
        cu_total_m_blocks = scheduler_metadata.cu_total_m_blocks
        cu_total_splits_m_blocks = scheduler_metadata.cu_total_splits_m_blocks
        blocks_to_batch_idx = scheduler_metadata.blocks_to_batch_idx
    elif use_cu_hint:
        cu_total_m_blocks, cu_total_splits_m_blocks = _compute_tile_cumsum(
            num_m_blocks=num_m_blocks,
            cu_seqlens=cu_seqlens_q,
            seqused=seqused_q,
            num_splits_dynamic=num_splits_dynamic,
            virtual_batch_idx=virtual_batch_idx,
            tile_size=tile_m,
            q_stage=q_stage,
            cluster_shape_m=cluster_shape_m,
            qhead_per_kvhead=qhead_per_kvhead,
            pack_gqa=pack_gqa,
        )
    if blocks_to_batch_idx is None and USE_BLOCKS_TO_BATCH and cu_total_m_blocks is not None:
        blocks_to_batch_idx = _compute_blocks_to_batch(
            cu_total_m_blocks,
            _blocks_to_batch_size(total_q, batch_size, tile_m, qhead_per_kvhead, pack_gqa),
            cu_total_m_blocks.device,
        )

    # Tensor max_seqlen values (e.g. HF varlen) must not leak into the compile key:
    # tensor identity changes on every call and defeats the JIT cache.
    is_static_persistent = (
        not causal and not local and cu_seqlens_q is None and seqused_q is None and not is_split_kv
    ) or (not torch.is_tensor(max_m_blocks_leq_one) and max_m_blocks_leq_one and not is_split_kv)

    # CuTe keeps stride-zero modes static when marking layouts dynamic.
    tensor_broadcast_patterns = tuple(
        get_broadcast_dims(tensor) if tensor is not None else None
        for tensor in (
            q,
            k,
            v,
            page_table,
            q_descale,
            k_descale,
            v_descale,
        )
    )

    compile_key = (
        dtype,
        head_dim,
        qhead_per_kvhead,
        causal,
        window_sizes is not None,
        score_mod_hash,
        mask_mod_hash,
        use_block_sparsity,
        block_sparse_broadcast_pattern,
        tensor_broadcast_patterns,
        aux_tensor_metadata,
        aux_scalar_metadata,
        lse is None,
        cu_seqlens_q is None,
        cu_seqlens_k is None,
        seqused_q is None,
        seqused_k is None,
        page_table is not None,
        (torch2cute_dtype_map[learnable_sink.dtype] if learnable_sink is not None else None),
        q_descale is not None,
        k_descale is not None,
        v_descale is not None,
        block_sparse_tensors is None or block_sparse_tensors.cu_total_m_blocks is None,
        block_sparse_tensors is None or block_sparse_tensors.cu_block_idx_offsets is None,
        tile_m,
        tile_n,
        q_stage,
        num_threads,
        is_split_kv,
        pack_gqa,
        arch,
        page_size not in [None, tile_n],  # paged KV non-TMA
        use_2cta_instrs,
        q_subtile_factor,
        kv_subtile_factor,
        mma_pv_is_rs,
        intra_wg_overlap,
        use_clc_scheduler,
        num_splits_dynamic is not None,
        virtual_batch_idx is not None,
        num_nheads_in_l2 is not None,
        tile_count_semaphore is not None,
        cu_total_m_blocks is not None,
        cu_total_splits_m_blocks is not None,
        blocks_to_batch_idx is not None,
        seqlen_k_per_split,
        is_static_persistent,
        fa_logging.get_fa_log_level(),
    )

    if compile_key not in _flash_attn_fwd.compile_cache:
        current_stream = cute.runtime.make_fake_stream(use_tvm_ffi_env_stream=True)
        (
            cu_seqlens_q_tensor,
            cu_seqlens_k_tensor,
            seqused_q_tensor,
            seqused_k_tensor,
            learnable_sink_tensor,
        ) = [
            to_cute_tensor(t, assumed_align=4, leading_dim=0) if t is not None else None
            for t in (cu_seqlens_q, cu_seqlens_k, seqused_q, seqused_k, learnable_sink)
        ]
        page_table_tensor = (
            to_cute_tensor(page_table, assumed_align=4, leading_dim=1)
            if page_table is not None
            else None
        )
        q_tensor, k_tensor, v_tensor, o_tensor = [
            to_cute_tensor(t) for t in (q, k, v, out if not is_split_kv else out_partial)
        ]
        window_sizes_tensor = (
            to_cute_tensor(window_sizes, assumed_align=4) if window_sizes is not None else None
        )
        if is_split_kv:
            lse_tensor = to_cute_tensor(lse_partial, assumed_align=4)
        else:
            lse_tensor = to_cute_tensor(lse, assumed_align=4)

        q_descale_tensor, k_descale_tensor, v_descale_tensor = (
            to_cute_tensor(t, assumed_align=4, leading_dim=1)
            for t in (q_descale, k_descale, v_descale)
        )
        descale_tensors_tensor = (
            DescaleTensors(
                q_descale=q_descale_tensor,
                k_descale=k_descale_tensor,
                v_descale=v_descale_tensor,
            )
            if q_descale_tensor is not None
            or k_descale_tensor is not None
            or v_descale_tensor is not None
            else None
        )

        sparse_tensors = None
        if normalized_block_sparse_tensors is not None:
            sparse_tensors = to_cute_block_sparse_tensors(normalized_block_sparse_tensors)

        cute_aux_tensors = None
        aux_tensor_metadata = None
        if aux_tensors is not None:
            cute_aux_tensors = [to_cute_aux_tensor(buf) for buf in aux_tensors]

        (
            num_splits_dynamic_tensor,
            tile_count_semaphore_tensor,
            virtual_batch_idx_tensor,
            num_nheads_in_l2_tensor,
            cu_total_m_blocks_tensor,
            cu_total_splits_m_blocks_tensor,
            blocks_to_batch_idx_tensor,
        ) = [
            to_cute_tensor(t, assumed_align=4, leading_dim=0)
            for t in (
                num_splits_dynamic,
                tile_count_semaphore,
                virtual_batch_idx,
                num_nheads_in_l2,
                cu_total_m_blocks,
                cu_total_splits_m_blocks,
                blocks_to_batch_idx,
            )
        ]

        if arch // 10 == 8:
            assert page_table is None, "paged KV not supported on SM 8.0"
            assert not is_split_kv, "SplitKV not supported on SM 8.0"
            fa_fwd = FlashSparseAttentionForwardSm80(
                dtype,
                head_dim,
                qhead_per_kvhead,
                is_causal=causal,
                is_local=local,
                pack_gqa=pack_gqa,
                tile_m=tile_m,
                tile_n=tile_n,
                num_stages=1,
                num_threads=num_threads,
                Q_in_regs=False,
                score_mod=score_mod,
                mask_mod=mask_mod,
                has_aux_tensors=aux_tensors is not None,
            )
        elif arch // 10 == 9:
            assert not is_split_kv, "SplitKV not supported on SM 9.0"
            fa_fwd = FlashSparseAttentionForwardSm90(
                dtype,
                head_dim,
                qhead_per_kvhead,
                is_causal=causal,
                is_local=local,
                pack_gqa=pack_gqa,
                tile_m=tile_m,
                tile_n=tile_n,
                # num_stages=1,
                num_stages=2,
                num_threads=num_threads,
                Q_in_regs=False,
                intra_wg_overlap=intra_wg_overlap,
                mma_pv_is_rs=mma_pv_is_rs,
                mask_mod=mask_mod,
                score_mod=score_mod,
                has_aux_tensors=aux_tensors is not None,
                q_subtile_factor=q_subtile_factor,
                paged_kv_non_tma=page_size not in [None, tile_n],
            )
        elif arch // 10 in [10, 11]:
            fa_fwd = FlashAttentionForwardSm100(
                head_dim,
                qhead_per_kvhead=qhead_per_kvhead,
                is_causal=causal,
                is_local=local,
                is_split_kv=is_split_kv,
                pack_gqa=pack_gqa,
                m_block_size=tile_m,
                n_block_size=tile_n,
                q_stage=q_stage,
                is_static_persistent=is_static_persistent,
                score_mod=score_mod,
                mask_mod=mask_mod,
                has_aux_tensors=aux_tensors is not None,
                paged_kv_non_tma=page_size not in [None, tile_n],
                is_varlen_q=cu_seqlens_q is not None or seqused_q is not None,
                q_subtile_factor=q_subtile_factor,
                kv_subtile_factor=kv_subtile_factor,
                use_2cta_instrs=use_2cta_instrs,
                use_clc_scheduler=use_clc_scheduler,
            )
        elif arch // 10 == 12:
            # SM120 (Blackwell GeForce / DGX Spark): uses SM80 MMA with SM120 SMEM capacity
            assert not use_block_sparsity, "Block sparsity not supported on SM 12.0"
            assert page_table is None, "Paged KV not supported on SM 12.0 in this PR"
            assert not is_split_kv, "SplitKV not supported on SM 12.0 in this PR"
            fa_fwd = FlashSparseAttentionForwardSm120(
                dtype,
                head_dim,
                qhead_per_kvhead,
                is_causal=causal,
                is_local=local,
                pack_gqa=pack_gqa,
                tile_m=tile_m,
                tile_n=tile_n,
                num_stages=1,
                num_threads=num_threads,
                Q_in_regs=False,
                score_mod=score_mod,
                mask_mod=mask_mod,
                has_aux_tensors=aux_tensors is not None,
            )
        else:
            raise ValueError(
                f"Unsupported compute capability: {arch}. Supported: 8.x, 9.x, 10.x, 11.x, 12.x"
            )
        # TODO: check @can_implement
        compile_args = [
            fa_fwd,
            q_tensor,
            k_tensor,
            v_tensor,
            o_tensor,
            lse_tensor,
            softmax_scale,
        ]
        if window_sizes is not None:
            compile_args.append(window_sizes_tensor)
        else:
            compile_args.append(None)
        if softmax_threshold is not None:
            compile_args.append(softmax_threshold)
        else:
            compile_args.append(0.0)
        compile_args.extend(
            [
                cu_seqlens_q_tensor,
                cu_seqlens_k_tensor,
                seqused_q_tensor,
                seqused_k_tensor,
                page_table_tensor,
                learnable_sink_tensor,
            ]
        )
        if arch // 10 in [10, 11]:
            compile_args.append(descale_tensors_tensor)
        compile_args.extend(
            [
                sparse_tensors,
                AuxData(cute_aux_tensors, aux_scalars),
            ]
        )
        if arch // 10 in [10, 11] and not use_dedicated_hd256_kernel:
            compile_args.extend(
                [
                    num_splits_dynamic_tensor,
                    tile_count_semaphore_tensor,
                    virtual_batch_idx_tensor,
                    num_nheads_in_l2_tensor,
                    cu_total_m_blocks_tensor,
                    cu_total_splits_m_blocks_tensor,
                    blocks_to_batch_idx_tensor,
                    max_seqlen_q,
                ]
            )
        elif arch // 10 in [8, 9, 12]:
            compile_args.extend(
                [
                    cu_total_m_blocks_tensor,
                    cu_total_splits_m_blocks_tensor,
                ]
            )
        compile_args.append(current_stream)
        _flash_attn_fwd.compile_cache[compile_key] = cute.compile(
            *compile_args, options="--enable-tvm-ffi"
        )

    if not fake_mode:
        q_call, k_call, v_call = [t.detach() for t in (q, k, v)]
        if is_fp8:
            # need uint8 workaround until we pin torch >= 2.11.0 where fp8 export is supported
            q_call, k_call, v_call = [t.view(torch.uint8) for t in (q_call, k_call, v_call)]
        descale_tensors = (
            DescaleTensors(q_descale=q_descale, k_descale=k_descale, v_descale=v_descale)
            if q_descale is not None or k_descale is not None or v_descale is not None
            else None
        )
        call_args = [
            q_call,
            k_call,
            v_call,
            out.detach() if not is_split_kv else out_partial,
            lse_partial if is_split_kv else lse,
            softmax_scale,
        ]
        if window_sizes is not None:
            call_args.append(window_sizes)
        else:
            call_args.append(None)
        if softmax_threshold is not None:
            call_args.append(softmax_threshold)
        else:
            call_args.append(0.0)
        call_args.extend(
            [
                cu_seqlens_q,
                cu_seqlens_k,
                seqused_q,
                seqused_k,
                page_table,
                learnable_sink,
            ]
        )
        if arch // 10 in [10, 11]:
            call_args.append(descale_tensors)
        call_args.extend(
            [
                (
                    normalized_block_sparse_tensors.mask_block_cnt,
                    normalized_block_sparse_tensors.mask_block_idx,
                    normalized_block_sparse_tensors.full_block_cnt,
                    normalized_block_sparse_tensors.full_block_idx,
                    normalized_block_sparse_tensors.cu_total_m_blocks,
                    normalized_block_sparse_tensors.cu_block_idx_offsets,
                    normalized_block_sparse_tensors.dq_write_order,
                    normalized_block_sparse_tensors.dq_write_order_full,
                )
                if normalized_block_sparse_tensors is not None
                else None,
                AuxData(aux_tensors, aux_scalars),
            ]
        )
        if arch // 10 in [10, 11] and not use_dedicated_hd256_kernel:
            call_args.extend(
                [
                    num_splits_dynamic,
                    tile_count_semaphore,
                    virtual_batch_idx,
                    num_nheads_in_l2,
                    cu_total_m_blocks,
                    cu_total_splits_m_blocks,
                    blocks_to_batch_idx,
                    max_seqlen_q,
                ]
            )
        elif arch // 10 in [8, 9, 12]:
            call_args.extend(
                [
                    cu_total_m_blocks,
                    cu_total_splits_m_blocks,
                ]
            )
        _flash_attn_fwd.compile_cache[compile_key](*call_args)
    if is_split_kv:
        _flash_attn_fwd_combine(
            out_partial,
            lse_partial.transpose(-1, -2),
            out,
            lse.transpose(-1, -2) if lse is not None else None,
            cu_seqlens_q,
            seqused_q,
            num_splits_dynamic_ptr=num_splits_dynamic if has_scheduler_metadata else None,
            virtual_batch_idx=virtual_batch_idx if has_scheduler_metadata else None,
            _arch=arch,
        )
    return out, lse


_flash_attn_fwd.compile_cache = get_jit_cache("fwd")


def make_fake_bwd_tensors(dtype, has_gqa, varlen_q, varlen_k):
    sym = cute.sym_int
    # divisibility in elements: assumed_align_bytes = divisibility * dtype.width // 8
    # For 16-byte align: fp16/bf16 → divisibility=8, float32 → divisibility=4
    div = 128 // dtype.width  # 8 for fp16/bf16
    # Shared sym_ints for dimensions that must match across tensors
    b, seqlen_q, seqlen_k, h_q, d = sym(), sym(), sym(), sym(), sym()
    h_kv = h_q if not has_gqa else sym()
    seqlen_q_rounded, seqlen_k_rounded = sym(), sym()
    seqlen_q_d_rounded, seqlen_k_d_rounded, seqlen_k_dv_rounded = sym(), sym(), sym()
    total_q, total_k, total_q_rounded, total_k_rounded = sym(), sym(), sym(), sym()
    total_q_d_rounded, total_k_d_rounded, total_k_dv_rounded = sym(), sym(), sym()
    b_seqlenq = (b, seqlen_q) if not varlen_q else (total_q,)
    b_seqlenk = (b, seqlen_k) if not varlen_k else (total_k,)
    mQ = fake_tensor(dtype, (*b_seqlenq, h_q, d), divisibility=div)
    mO = fake_tensor(dtype, (*b_seqlenq, h_q, d), divisibility=div)
    mdO = fake_tensor(dtype, (*b_seqlenq, h_q, d), divisibility=div)
    mK = fake_tensor(dtype, (*b_seqlenk, h_kv, d), divisibility=div)
    mV = fake_tensor(dtype, (*b_seqlenk, h_kv, d), divisibility=div)
    mdQ = fake_tensor(dtype, (*b_seqlenq, h_q, d), divisibility=div)
    mdK = fake_tensor(dtype, (*b_seqlenk, h_kv, d), divisibility=div)
    mdV = fake_tensor(dtype, (*b_seqlenk, h_kv, d), divisibility=div)

    sq = seqlen_q if not varlen_q else total_q
    sq_r = seqlen_q_rounded if not varlen_q else total_q_rounded
    sq_dr = seqlen_q_d_rounded if not varlen_q else total_q_d_rounded

    def shape(*dims):
        batch = (b,) if not varlen_q else ()
        return (*batch, h_q, *dims)

    mLSE = fake_tensor(Float32, shape(sq), divisibility=1)
    mLSElog2 = fake_tensor(Float32, shape(sq_r), divisibility=4)
    mPdPsum = fake_tensor(Float32, shape(sq_r), divisibility=4)
    dQaccum = fake_tensor(Float32, shape(sq_dr), divisibility=4)

    if not has_gqa:
        mdKaccum, mdVaccum = None, None
    else:
        if not varlen_k:
            mdKaccum = fake_tensor(Float32, (b, h_kv, seqlen_k_rounded), divisibility=4)
            mdVaccum = fake_tensor(Float32, (b, h_kv, seqlen_k_dv_rounded), divisibility=4)
        else:
            mdKaccum = fake_tensor(Float32, (h_kv, total_k_rounded), divisibility=4)
            mdVaccum = fake_tensor(Float32, (h_kv, total_k_dv_rounded), divisibility=4)
    return (
        mQ,
        mK,
        mV,
        mO,
        mdO,
        mdQ,
        mdK,
        mdV,
        mLSE,
        mLSElog2,
        mPdPsum,
        dQaccum,
        mdKaccum,
        mdVaccum,
    )


def _compile_bwd_preprocess(
    dtype,
    head_dim,
    m_block_size,
    has_cuseqlens_q,
    has_seqused_q,
    has_dlse,
    has_dq_accum,
    use_padded_offsets,
    pack_gqa,
    qhead_per_kvhead,
    nheads_kv,
    has_cu_total_m_blocks,
    hdim_multiple_of,
):
    """Compile bwd preprocess kernel using cute fake tensors (no real GPU tensors needed)."""
    (
        mQ,
        mK,
        mV,
        mO,
        mdO,
        mdQ,
        mdK,
        mdV,
        mLSE,
        mLSElog2,
        mPdPsum,
        mdQaccum,
        mdKaccum,
        mdVaccum,
    ) = make_fake_bwd_tensors(
        dtype,
        has_gqa=True,
        varlen_q=has_cuseqlens_q,
        varlen_k=False,
    )
    batch = mQ.shape[0] if not has_cuseqlens_q else cute.sym_int()
    batchp1 = cute.sym_int()
    mCuSeqlensQ = fake_tensor(Int32, (batchp1,), divisibility=1) if has_cuseqlens_q else None
    mSequsedQ = fake_tensor(Int32, (batch,), divisibility=1) if has_seqused_q else None
    mCuTotalMBlocks = (
        fake_tensor(Int32, (batchp1,), divisibility=1) if has_cu_total_m_blocks else None
    )
    mdLSE = fake_tensor(Float32, mLSE.shape, divisibility=1) if has_dlse else None
    mdQaccum = mdQaccum if has_dq_accum else None
    fa_bwd_pre = FlashAttentionBackwardPreprocess(
        dtype,
        head_dim,
        m_block_size,
        use_padded_offsets=use_padded_offsets,
        pack_gqa=pack_gqa,
        qhead_per_kvhead=qhead_per_kvhead,
        nheads_kv=nheads_kv,
        hdim_multiple_of=hdim_multiple_of,
    )
    return cute.compile(
        fa_bwd_pre,
        mO,
        mdO,
        mPdPsum,
        mLSE,
        mLSElog2,
        mdQaccum,
        mCuSeqlensQ,
        mSequsedQ,
        mdLSE,
        mCuTotalMBlocks,
        cute.runtime.make_fake_stream(use_tvm_ffi_env_stream=True),
        options="--enable-tvm-ffi",
    )


def _bwd_preprocess(
    out,
    dout,
    dpsum,
    lse,
    lse_log2,
    dq_accum,
    cu_seqlens_q,
    seqused_q,
    dlse,
    dtype,
    head_dim,
    m_block_size,
    use_padded_offsets=True,
    pack_gqa=False,
    qhead_per_kvhead=1,  # only used with pack_gqa
    nheads_kv=1,  # only used with pack_gqa
    cu_total_m_blocks=None,
    hdim_multiple_of=32,
    *,
    fake_mode,
):
    """Backward preprocess: compute (o * dout).sum(dim=-1) - dLSE, lse * log2_e, and zero out dq_accum."""
    is_varlen = cu_seqlens_q is not None or seqused_q is not None
    if is_varlen:
        batch_size = (cu_seqlens_q.shape[0] - 1) if cu_seqlens_q is not None else seqused_q.shape[0]
    else:
        batch_size = 0
    if cu_total_m_blocks is None and is_varlen and batch_size > BIN_BATCH_SEARCH_THRESH:
        cu_total_m_blocks, _ = _compute_tile_cumsum(
            cu_seqlens=cu_seqlens_q,
            seqused=seqused_q,
            tile_size=m_block_size,
            qhead_per_kvhead=qhead_per_kvhead,
            pack_gqa=pack_gqa,
        )
    compile_key = (
        dtype,
        head_dim,
        m_block_size,
        cu_seqlens_q is not None,
        seqused_q is not None,
        dlse is not None,
        dq_accum is not None,
        use_padded_offsets,
        pack_gqa,
        qhead_per_kvhead,
        nheads_kv,
        cu_total_m_blocks is not None,
        hdim_multiple_of,
    )
    if compile_key not in _bwd_preprocess.compile_cache:
        _bwd_preprocess.compile_cache[compile_key] = _compile_bwd_preprocess(*compile_key)
    if not fake_mode:
        _bwd_preprocess.compile_cache[compile_key](
            out,
            dout,
            dpsum,
            lse,
            lse_log2,
            dq_accum,
            cu_seqlens_q,
            seqused_q,
            dlse,
            cu_total_m_blocks,
        )


_bwd_preprocess.compile_cache = get_jit_cache("bwd_pre")


def _compile_bwd_postprocess(
    dtype,
    hdim,
    block_size,
    num_threads,
    atom_layout,
    swap_ab,
    has_cuseqlens_q,
    has_seqused_q,
    use_2cta_instrs,
    cluster_size,
    arch,
    has_cu_total_m_blocks,
    learnable_sink_dtype,
    hdim_multiple_of,
):
    """Compile bwd postprocess kernel using cute fake tensors."""
    (
        mQ,
        mK,
        mV,
        mO,
        mdO,
        mdQ,
        mdK,
        mdV,
        mLSE,
        mLSElog2,
        mPdPsum,
        mdQaccum,
        mdKaccum,
        mdVaccum,
    ) = make_fake_bwd_tensors(dtype, has_gqa=True, varlen_q=has_cuseqlens_q, varlen_k=False)
    batch = mQ.shape[0] if not has_cuseqlens_q else cute.sym_int()
    batchp1 = cute.sym_int()
    mCuSeqlensQ = fake_tensor(Int32, (batchp1,), divisibility=1) if has_cuseqlens_q else None
    mSeqUsedQ = fake_tensor(Int32, (batch,), divisibility=1) if has_seqused_q else None
    mCuTotalMBlocks = (
        fake_tensor(Int32, (batchp1,), divisibility=1) if has_cu_total_m_blocks else None
    )
    sink_tensors = (
        LearnableSinkBwdTensors(
            mPdPsum,
            mLSE,
            fake_tensor(learnable_sink_dtype, (mQ.shape[-2],), divisibility=1),
            fake_tensor(learnable_sink_dtype, (mQ.shape[-2],), divisibility=1),
        )
        if learnable_sink_dtype is not None
        else None
    )
    fa_bwd_post = FlashAttentionBackwardPostprocess(
        dtype,
        hdim,
        arch,
        block_size,
        num_threads,
        atom_layout,
        swap_ab,
        use_2cta_instrs=use_2cta_instrs,
        cluster_size=cluster_size,
        hdim_multiple_of=hdim_multiple_of,
    )
    return cute.compile(
        fa_bwd_post,
        mdQaccum,
        mdQ,
        Float32(0.0),
        mCuSeqlensQ,
        mSeqUsedQ,
        sink_tensors,
        mCuTotalMBlocks,
        cute.runtime.make_fake_stream(use_tvm_ffi_env_stream=True),
        options="--enable-tvm-ffi",
    )


def _bwd_postprocess_convert(
    accum,
    output,
    scale,
    cu_seqlens,
    seqused,
    arch,
    dtype,
    hdim,
    block_size,
    num_threads,
    atom_layout,
    swap_ab,
    use_2cta_instrs=False,
    cluster_size=1,
    cu_total_m_blocks=None,
    sink_tensors=None,
    hdim_multiple_of=32,
    *,
    fake_mode,
):
    """Backward postprocess: convert float32 accumulator to bf16/fp16 output."""
    is_varlen = cu_seqlens is not None or seqused is not None
    if is_varlen:
        batch_size = (cu_seqlens.shape[0] - 1) if cu_seqlens is not None else seqused.shape[0]
    else:
        batch_size = 0
    if cu_total_m_blocks is None and is_varlen and batch_size > BIN_BATCH_SEARCH_THRESH:
        cu_total_m_blocks, _ = _compute_tile_cumsum(
            cu_seqlens=cu_seqlens,
            seqused=seqused,
            tile_size=block_size,
        )
    compile_key = (
        dtype,
        hdim,
        block_size,
        num_threads,
        atom_layout,
        swap_ab,
        cu_seqlens is not None,
        seqused is not None,
        use_2cta_instrs,
        cluster_size,
        arch,
        cu_total_m_blocks is not None,
        (torch2cute_dtype_map[sink_tensors.sink.dtype] if sink_tensors is not None else None),
        hdim_multiple_of,
    )
    if compile_key not in _bwd_postprocess_convert.compile_cache:
        _bwd_postprocess_convert.compile_cache[compile_key] = _compile_bwd_postprocess(*compile_key)
    if not fake_mode:
        _bwd_postprocess_convert.compile_cache[compile_key](
            accum,
            output,
            scale,
            cu_seqlens,
            seqused,
            sink_tensors,
            cu_total_m_blocks,
        )


_bwd_postprocess_convert.compile_cache = get_jit_cache("bwd_post")


def _flash_attn_bwd(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    out: torch.Tensor,
    dout: torch.Tensor,
    lse: torch.Tensor,
    softmax_scale: Optional[float] = None,
    softmax_threshold: Optional[float] = None,
    causal: bool = False,
    softcap: float = 0.0,
    window_sizes: Optional[torch.Tensor] = None,
    local: bool = False,
    m_block_size: int = 64,
    n_block_size: int = 128,
    num_threads: int = 256,
    pack_gqa: bool = False,
    num_stages_Q: int = 2,
    num_stages_dO: int = 2,
    SdP_swapAB: bool = False,
    dKV_swapAB: bool = False,
    dQ_swapAB: bool = False,
    AtomLayoutMSdP: int = 2,
    AtomLayoutNdKV: int = 2,
    AtomLayoutMdQ: int = 2,
    V_in_regs: bool = False,
    cu_seqlens_q: Optional[torch.Tensor] = None,
    cu_seqlens_k: Optional[torch.Tensor] = None,
    seqused_q: Optional[torch.Tensor] = None,
    seqused_k: Optional[torch.Tensor] = None,
    max_seqlen_q: Optional[int] = None,
    max_seqlen_k: Optional[int] = None,
    deterministic: bool = False,
    dq: Optional[torch.Tensor] = None,
    dk: Optional[torch.Tensor] = None,
    dv: Optional[torch.Tensor] = None,
    score_mod: Optional[Callable] = None,
    score_mod_bwd: Optional[Callable] = None,
    mask_mod: Optional[Callable] = None,
    aux_tensors: Optional[list[torch.Tensor]] = None,
    aux_scalars: Optional[tuple] = None,
    block_sparse_tensors: Optional[BlockSparseTensorsTorch] = None,
    dlse: Optional[torch.Tensor] = None,
    learnable_sink: Optional[torch.Tensor] = None,
) -> Tuple[torch.Tensor, ...]:
    aux_scalars = tuple(aux_scalars) if aux_scalars else None
    fake_mode = is_fake_mode()
    arch = _get_device_arch()
    # TODO: support 10.x and 11.x for FSA
    assert arch // 10 in [8, 9, 12], (
        "Unsupported compute capability. Supported: 8.x, 9.x, 12.x for FlashSparseAttention yet."
    )
    assert arch // 10 in [8, 9, 10, 11, 12], (
        "Unsupported compute capability. Supported: 8.x, 9.x, 10.x, 11.x, 12.x"
    )
    if block_sparse_tensors is not None:
        assert (
            cu_seqlens_q is None
            and cu_seqlens_k is None
            and seqused_q is None
            and seqused_k is None
        ), "Varlen backward with block sparsity is not yet supported"
    if learnable_sink is not None:
        assert arch // 10 in [9, 10, 11], (
            "Learnable sink backward is supported on SM90 and SM100/SM110"
        )
        assert lse is not None, "learnable_sink backward requires LSE"
        if q.numel() == 0 or k.numel() == 0:
            dq = torch.zeros_like(q) if dq is None else dq.zero_()
            dk = torch.zeros_like(k) if dk is None else dk.zero_()
            dv = torch.zeros_like(v) if dv is None else dv.zero_()
            dsink = (
                dlse.sum(dim=(0, 2) if dlse.ndim == 3 else 1).to(learnable_sink.dtype)
                if dlse is not None
                else torch.zeros_like(learnable_sink)
            )
            return dq, dk, dv, dsink
        assert window_sizes is None, (
            "block sparsity and window sizes cannot be enabled at the same time"
        )
        assert softmax_threshold is None, (
            "block sparsity and softmax threshold cannot be enabled at the same time"
        )
    sparse_q = None
    kv_subtile_factor = 1
    if block_sparse_tensors is not None:
        if block_sparse_tensors.block_size is not None:
            sparse_q = block_sparse_tensors.block_size[0]
        elif arch // 10 == 9:
            sparse_q = 128

    num_head, head_dim = q.shape[-2:]
    if arch // 10 in [10, 11] and head_dim == 256:
        raise NotImplementedError("SM100/SM110 backward with head_dim=256 is not supported")

    local = local or window_sizes is not None

    if arch // 10 == 8:
        m_block_size = 64
        n_block_size = 128
        num_stages_Q = 2
        num_stages_dO = 1
        num_threads = 256
        SdP_swapAB = False
        dKV_swapAB = False
        dQ_swapAB = False
        AtomLayoutMSdP = 2
        AtomLayoutNdKV = 2
        AtomLayoutMdQ = 2
        V_in_regs = False
        dQ_single_wg = False
        cluster_size = 1
        use_2cta_instrs = False
        assert block_sparse_tensors is None, "Block sparsity backward is not supported on SM8x"
        assert mask_mod is None, "mask_mod backward is not supported on SM8x"
        assert deterministic is False, "deterministic backward is not supported on SM8x"
    elif arch // 10 == 12:
        # SM120: uses SM80 MMA with 99 KB SMEM, 128 threads (4 warps).
        m_block_size = 64
        n_block_size = 64
        if head_dim <= 64:
            num_stages_Q = 2
            num_stages_dO = 2
        else:
            num_stages_Q = 1
            num_stages_dO = 1
        SdP_swapAB = False
        dKV_swapAB = False
        dQ_swapAB = False
        AtomLayoutMSdP = 4
        AtomLayoutNdKV = 4
        AtomLayoutMdQ = 4
        V_in_regs = False
        dQ_single_wg = False
        cluster_size = 1
        use_2cta_instrs = False
        num_threads = 128
        assert not (block_sparse_tensors is not None), (
            "Block sparsity backward not supported on SM 12.0"
        )
        assert score_mod is None and score_mod_bwd is None, (
            "score_mod backward not supported on SM 12.0"
        )
        assert mask_mod is None, "mask_mod backward not supported on SM 12.0"
        assert deterministic is False, "deterministic backward not supported on SM 12.0"
    elif arch // 10 == 9:
        cfg = _tile_size_bwd_sm90(
            head_dim,
            causal,
            local,
            sparse_block_size_q=sparse_q,
        )
        m_block_size = cfg.m_block_size
        n_block_size = cfg.n_block_size
        num_stages_Q = cfg.num_stages_Q
        num_stages_PdS = cfg.num_stages_PdS
        SdP_swapAB = cfg.SdP_swapAB
        dKV_swapAB = cfg.dKV_swapAB
        dQ_swapAB = cfg.dQ_swapAB
        AtomLayoutMSdP = cfg.AtomLayoutMSdP
        AtomLayoutNdKV = cfg.AtomLayoutNdKV
        AtomLayoutMdQ = cfg.AtomLayoutMdQ
        num_threads = (cfg.num_wg + 1) * 128
        dQ_single_wg = cfg.dQ_single_wg
        cluster_size = 1
        use_2cta_instrs = False
    else:
        m_block_size = 128
        n_block_size = 128
        dQ_swapAB = False
        dKV_swapAB = False
        AtomLayoutMdQ = 1
        AtomLayoutNdKV = 1
        requested_disable_2cta = utils._get_disable_2cta_default()
        kv_subtile_factor = get_kv_subtile_factor(block_sparse_tensors, n_block_size)
        use_2cta_instrs = (
            head_dim >= 128
            and not requested_disable_2cta
            and block_sparse_bwd_supports_2cta(block_sparse_tensors, n_block_size)
        )
        if block_sparse_tensors is not None and head_dim == 192 and not use_2cta_instrs:
            reason = (
                "2CTA was disabled by request"
                if requested_disable_2cta
                else (
                    f"sparse_block_size[1] must cover an even number of tile_n={n_block_size} "
                    f"tiles; got factor {kv_subtile_factor}"
                )
            )
            raise ValueError(
                f"SM100 block-sparse backward with head_dim=192 requires 2CTA; {reason}."
            )
        cluster_size = 2 if use_2cta_instrs else 1

    is_varlen = (
        cu_seqlens_q is not None
        or cu_seqlens_k is not None
        or seqused_q is not None
        or seqused_k is not None
    )

    q, k, v, out, dout, lse, cu_seqlens_q, cu_seqlens_k, seqused_q, seqused_k, learnable_sink = [
        maybe_contiguous(t)
        for t in (
            q,
            k,
            v,
            out,
            dout,
            lse,
            cu_seqlens_q,
            cu_seqlens_k,
            seqused_q,
            seqused_k,
            learnable_sink,
        )
    ]
    if cu_seqlens_q is None:
        batch_size, seqlen_q = q.shape[:2]
        total_q = batch_size * seqlen_q
    else:
        batch_size = cu_seqlens_q.shape[0] - 1
        total_q = q.shape[0]
        seqlen_q = max_seqlen_q if max_seqlen_q is not None else total_q

    if cu_seqlens_k is None:
        batch_size, seqlen_k = k.shape[:2]
        total_k = batch_size * seqlen_k
    else:
        batch_size = cu_seqlens_k.shape[0] - 1
        total_k = k.shape[0]
        seqlen_k = max_seqlen_k if max_seqlen_k is not None else total_k

    num_head_kv = k.shape[-2]

    use_block_sparsity = block_sparse_tensors is not None
    if sparse_q is not None and (sparse_q <= 0 or sparse_q % m_block_size != 0):
        raise ValueError(
            "Block sparsity requires sparse_block_size[0] to be a multiple of "
            f"tile_m={m_block_size}; got {sparse_q}."
        )
    q_subtile_factor = sparse_q // m_block_size if sparse_q is not None else 2
    seqlen_q_rounded = (seqlen_q + m_block_size - 1) // m_block_size * m_block_size
    seqlen_k_rounded = (seqlen_k + n_block_size - 1) // n_block_size * n_block_size
    num_n_blocks = seqlen_k_rounded // n_block_size
    if cluster_size == 2 and num_n_blocks % cluster_size != 0:
        seqlen_k_rounded = seqlen_k_rounded + n_block_size

    # The single-block specialization below only guards against TVM stride poisoning,
    # which is a host-side branch predicate that selects a kernel variant. When
    # max_seqlen is passed as a tensor (e.g. HF/TE varlen), seqlen_*_rounded are tensors,
    # so `seqlen_*_rounded // block == 1` would leak a tensor into the compile key. Its
    # pickle hash differs every call, forcing a recompile per step. Only specialize when
    # the seqlen is already a host scalar; tensor callers fall back to the multi-block
    # default, keeping the key stable with no device sync.
    single_q_block = (not torch.is_tensor(seqlen_q_rounded)) and (
        seqlen_q_rounded // m_block_size == 1
    )
    single_k_block = (not torch.is_tensor(seqlen_k_rounded)) and (
        seqlen_k_rounded // n_block_size == 1
    )

    if cu_seqlens_k is None:
        assert k.shape == (batch_size, seqlen_k, num_head_kv, head_dim)
        assert v.shape == (batch_size, seqlen_k, num_head_kv, head_dim)
    else:
        assert k.shape == (total_k, num_head_kv, head_dim)
        assert v.shape == (total_k, num_head_kv, head_dim)
        assert cu_seqlens_k.shape == (batch_size + 1,), (
            "cu_seqlens_k must have shape (batch_size + 1,)"
        )

    if cu_seqlens_q is not None:
        assert cu_seqlens_q.shape == (batch_size + 1,), (
            "cu_seqlens_q must have shape (batch_size + 1,)"
        )

        assert out.shape == (total_q, num_head, head_dim)
        assert dout.shape == (total_q, num_head, head_dim)
        assert lse.shape == (num_head, total_q), "lse must have shape (num_head, total_q)"
    else:
        assert out.shape == (batch_size, seqlen_q, num_head, head_dim)
        assert dout.shape == (batch_size, seqlen_q, num_head, head_dim)
        assert lse.shape == (batch_size, num_head, seqlen_q), (
            "lse must have shape (batch_size, num_head, seqlen_q)"
        )

    assert q.dtype in [torch.float16, torch.bfloat16], "inputs must be float16 or bfloat16"
    assert q.dtype == k.dtype == v.dtype == out.dtype == dout.dtype, (
        "inputs must have the same dtype"
    )
    for t in [cu_seqlens_q, cu_seqlens_k]:
        if t is not None:
            assert t.dtype == torch.int32, "cu_seqlens_q, cu_seqlens_k must be int32"
    assert lse.dtype == torch.float32, "lse must be float32"
    if dlse is not None:
        dlse = maybe_contiguous(dlse)
    if learnable_sink is not None:
        assert learnable_sink.shape == (num_head,)
        assert learnable_sink.dtype in _LEARNABLE_SINK_DTYPES, (
            "learnable_sink must be float16, bfloat16, or float32"
        )
    if not fake_mode:
        assert all(
            t is None or t.is_cuda
            for t in (q, k, v, out, dout, lse, cu_seqlens_q, cu_seqlens_k, learnable_sink)
        ), "inputs must be on CUDA device"
    assert num_head % num_head_kv == 0, "num_head must be divisible by num_head_kv"
    alignment = 16 // q.element_size()
    if arch // 10 != 12:
        _validate_head_dims(head_dim, arch // 10, alignment)
    if softmax_scale is None:
        softmax_scale = 1.0 / math.sqrt(head_dim)
    qhead_per_kvhead = num_head // num_head_kv
    if pack_gqa is None:
        pack_gqa = qhead_per_kvhead > 1
    # pack_gqa backward not yet supported in bwd
    pack_gqa = False

    if softcap != 0.0:
        assert score_mod is None and score_mod_bwd is None, (
            "softcap and score_mod/score_mod_bwd cannot be used together"
        )
        score_mod = utils.create_softcap_scoremod(softcap)
        score_mod_bwd = utils.create_softcap_scoremod_bwd(softcap)
    if score_mod is not None:
        assert score_mod_bwd is not None, "score_mod_bwd is required when score_mod is provided"
        if arch // 10 == 8:
            raise NotImplementedError(
                "Custom user-provided score_mod is not supported on SM8x architectures."
            )

    device = q.device
    out_torch_dtype = q.dtype

    if dq is None:
        dq = torch.empty_like(q)
    else:
        _validate_tensor(dq, "dq", q.shape, out_torch_dtype, device)

    if dk is None:
        dk = torch.empty_like(k)
    else:
        _validate_tensor(dk, "dk", k.shape, out_torch_dtype, device)

    if dv is None:
        dv = torch.empty_like(v)
    else:
        _validate_tensor(dv, "dv", v.shape, out_torch_dtype, device)

    if window_sizes is not None:
        window_sizes = window_sizes.contiguous()
        _validate_tensor(
            window_sizes,
            "window_sizes",
            (num_head_kv, 4),
            torch.int32,
            device,
        )

    if local and window_sizes is None:
        window_sizes = window_sizes_heuristic(seqlen_k, num_head_kv, device)

    # Keep accumulator allocation, zeroing, and readback aligned with SM90's swapped MMA.
    hdim_multiple_of = 64 if arch // 10 == 9 and dKV_swapAB else 32
    head_dim_rounded = (head_dim + hdim_multiple_of - 1) // hdim_multiple_of * hdim_multiple_of

    if cu_seqlens_q is None:
        dq_accum = torch.empty(
            batch_size,
            num_head,
            seqlen_q_rounded * head_dim_rounded,
            dtype=torch.float32,
            device=device,
        )
        dpsum = torch.empty(
            batch_size, num_head, seqlen_q_rounded, dtype=torch.float32, device=device
        )
        lse_log2 = torch.empty(
            batch_size, num_head, seqlen_q_rounded, dtype=torch.float32, device=device
        )
    else:
        total_q_rounded_padded = (
            (total_q + cu_seqlens_q.shape[0] * m_block_size - 1) // m_block_size * m_block_size
        )
        dq_accum = torch.empty(
            num_head,
            total_q_rounded_padded * head_dim_rounded,
            dtype=torch.float32,
            device=device,
        )
        dpsum = torch.empty(num_head, total_q_rounded_padded, dtype=torch.float32, device=device)
        lse_log2 = torch.empty(num_head, total_q_rounded_padded, dtype=torch.float32, device=device)

    # GQA (qhead_per_kvhead > 1) needs dK/dV accum+postprocess since multiple Q heads
    # accumulate into the same dK/dV. SM90 varlen_k with qhead_per_kvhead==1 now uses
    # ragged TMA tensors for direct store, so no longer needs accum+postprocess.
    dKV_postprocess = qhead_per_kvhead > 1
    if dKV_postprocess:
        if cu_seqlens_k is None:
            dk_accum = torch.zeros(
                batch_size,
                num_head_kv,
                seqlen_k_rounded * head_dim_rounded,
                dtype=torch.float32,
                device=device,
            )
            dv_accum = torch.zeros(
                batch_size,
                num_head_kv,
                seqlen_k_rounded * head_dim_rounded,
                dtype=torch.float32,
                device=device,
            )
        else:
            cluster_tile_n = cluster_size * n_block_size
            total_k_rounded_padded = (
                (total_k + cu_seqlens_k.shape[0] * cluster_tile_n - 1)
                // cluster_tile_n
                * cluster_tile_n
            )
            dk_accum = torch.zeros(
                num_head_kv,
                total_k_rounded_padded * head_dim_rounded,
                dtype=torch.float32,
                device=device,
            )
            dv_accum = torch.zeros(
                num_head_kv,
                total_k_rounded_padded * head_dim_rounded,
                dtype=torch.float32,
                device=device,
            )

    dtype = torch2cute_dtype_map[q.dtype]

    if deterministic:
        dQ_semaphore = torch.zeros(
            batch_size,
            num_head,
            seqlen_q_rounded // m_block_size,
            cluster_size,
            dtype=torch.int32,
            device=device,
        )
    else:
        dQ_semaphore = None

    if deterministic and qhead_per_kvhead > 1:
        dK_semaphore = torch.zeros(
            batch_size,
            num_head_kv,
            seqlen_k_rounded // n_block_size,
            2,
            dtype=torch.int32,
            device=device,
        )
        dV_semaphore = torch.zeros(
            batch_size,
            num_head_kv,
            seqlen_k_rounded // n_block_size,
            2,
            dtype=torch.int32,
            device=device,
        )
    else:
        dK_semaphore = None
        dV_semaphore = None

    # SingleTileVarlenScheduler batch-lookup aid, above BIN_BATCH_SEARCH_THRESH;
    # shared across preprocess, main bwd, and the three postprocess calls.
    cu_total_m_blocks_q = None
    cu_total_m_blocks_k = None
    if is_varlen and batch_size > BIN_BATCH_SEARCH_THRESH:
        cu_total_m_blocks_q, _ = _compute_tile_cumsum(
            cu_seqlens=cu_seqlens_q,
            seqused=seqused_q,
            tile_size=m_block_size,
        )
        cu_total_m_blocks_k, _ = _compute_tile_cumsum(
            cu_seqlens=cu_seqlens_k,
            seqused=seqused_k,
            tile_size=n_block_size,
            cluster_shape_m=cluster_size,
        )

    dsink = torch.empty_like(learnable_sink) if learnable_sink is not None else None

    # Preprocess kernel: compute (o * dout).sum(dim=-1) - dLSE, lse * log2_e, and zero out dq_accum.
    _bwd_preprocess(
        out,
        dout,
        dpsum,
        lse,
        lse_log2,
        dq_accum,
        cu_seqlens_q,
        seqused_q,
        dlse,
        dtype,
        head_dim,
        m_block_size,
        cu_total_m_blocks=cu_total_m_blocks_q,
        fake_mode=fake_mode,
        hdim_multiple_of=hdim_multiple_of,
    )
    # num_threads: SM90 derives from BwdConfig.num_wg, SM120 is set to 128 above,
    # SM100/SM110 uses default from function signature (384).
    if arch // 10 not in [8, 9, 12]:
        num_threads = 384

    # Backward kernel: compute dk, dv, dq_accum.
    score_mod_hash = utils.hash_callable(score_mod) if score_mod else False
    score_mod_bwd_hash = utils.hash_callable(score_mod_bwd) if score_mod_bwd else False
    mask_mod_hash = utils.hash_callable(mask_mod) if mask_mod else False
    num_aux_tensors = len(aux_tensors) if aux_tensors else 0
    aux_tensor_metadata = get_aux_tensor_metadata(aux_tensors) if aux_tensors is not None else None
    aux_scalar_metadata = tuple(type(s) for s in aux_scalars) if aux_scalars is not None else None

    block_sparse_broadcast_pattern = None
    normalized_block_sparse_tensors = None
    if use_block_sparsity:
        (
            normalized_block_sparse_tensors,
            block_sparse_broadcast_pattern,
        ) = normalize_block_sparse_config_bwd(
            block_sparse_tensors,
            batch_size=batch_size,
            num_head=num_head,
            seqlen_q=seqlen_q,
            seqlen_k=seqlen_k,
            block_size=(m_block_size, n_block_size),
            q_subtile_factor=q_subtile_factor,
            kv_subtile_factor=kv_subtile_factor,
        )
        if deterministic:
            if normalized_block_sparse_tensors.dq_write_order is None:
                raise ValueError(
                    "deterministic block-sparse backward requires dq_write_order in block_sparse_tensors"
                )
            if (
                normalized_block_sparse_tensors.full_block_cnt is not None
                and normalized_block_sparse_tensors.dq_write_order_full is None
            ):
                raise ValueError(
                    "deterministic block-sparse backward requires dq_write_order_full when full blocks are present"
                )
            if normalized_block_sparse_tensors.spt is None:
                raise ValueError(
                    "deterministic block-sparse backward requires block_sparse_tensors.spt "
                    "to match dq_write_order direction"
                )
    if (
        normalized_block_sparse_tensors is not None
        and normalized_block_sparse_tensors.spt is not None
    ):
        spt = normalized_block_sparse_tensors.spt and deterministic
    else:
        spt = (causal or local) and deterministic

    if arch // 10 in [8, 9, 12]:
        compile_key = (
            arch,
            dtype,
            head_dim,
            qhead_per_kvhead,
            causal,
            softmax_threshold is not None,
            window_sizes is not None,
            m_block_size,
            n_block_size,
            num_threads,
            pack_gqa,
            num_stages_Q,
            None,  # num_stages_dO
            SdP_swapAB,
            dKV_swapAB,
            dQ_swapAB,
            AtomLayoutMSdP,
            AtomLayoutNdKV,
            AtomLayoutMdQ,
            V_in_regs,
            dQ_single_wg,
            deterministic,
            cu_seqlens_q is None,
            cu_seqlens_k is None,
            seqused_q is None,
            seqused_k is None,
            score_mod_hash,
            score_mod_bwd_hash,
            mask_mod_hash,
            num_aux_tensors,
            aux_tensor_metadata,
            aux_scalar_metadata,
            use_block_sparsity,
            q_subtile_factor,
            block_sparse_broadcast_pattern,
            get_broadcast_dims(q),
            get_broadcast_dims(k),
            get_broadcast_dims(v),
            get_broadcast_dims(dout),
            # Prevent TVM stride poisoning when only one block is present.
            single_q_block,
            single_k_block,
            cu_total_m_blocks_k is not None,
        )
    else:
        compile_key = (
            arch,
            dtype,
            head_dim,
            qhead_per_kvhead,
            causal,
            window_sizes is not None,
            m_block_size,
            n_block_size,
            num_threads,
            pack_gqa,
            cluster_size,
            use_2cta_instrs,
            q_subtile_factor,
            kv_subtile_factor,
            deterministic,
            spt,
            score_mod_hash,
            score_mod_bwd_hash,
            mask_mod_hash,
            num_aux_tensors,
            aux_tensor_metadata,
            aux_scalar_metadata,
            use_block_sparsity,
            block_sparse_broadcast_pattern,
            cu_seqlens_q is None,
            cu_seqlens_k is None,
            seqused_q is None,
            seqused_k is None,
            get_broadcast_dims(q),
            get_broadcast_dims(k),
            get_broadcast_dims(v),
            get_broadcast_dims(dout),
            # Prevent TVM stride poisoning when only one block is present.
            single_q_block,
            single_k_block,
            cu_total_m_blocks_k is not None,
        )

    if compile_key not in _flash_attn_bwd.compile_cache:
        current_stream = cute.runtime.make_fake_stream(use_tvm_ffi_env_stream=True)
        cute_aux_tensors = (
            [to_cute_aux_tensor(buf) for buf in aux_tensors] if aux_tensors is not None else None
        )
        q_tensor, k_tensor, v_tensor, do_tensor, dq_tensor, dk_tensor, dv_tensor = [
            to_cute_tensor(t) for t in (q, k, v, dout, dq, dk, dv)
        ]
        window_sizes_tensor = (
            to_cute_tensor(window_sizes, assumed_align=4) if window_sizes is not None else None
        )
        lse_log2_tensor, dpsum_tensor = [to_cute_tensor(t) for t in (lse_log2, dpsum)]
        dq_accum_tensor = to_cute_tensor(dq_accum) if dq_accum is not None else None
        if dKV_postprocess:
            dk_accum_tensor, dv_accum_tensor = [to_cute_tensor(t) for t in (dk_accum, dv_accum)]
        (
            cu_seqlens_q_tensor,
            cu_seqlens_k_tensor,
            seqused_q_tensor,
            seqused_k_tensor,
            cu_total_m_blocks_k_tensor,
        ) = [
            to_cute_tensor(t, assumed_align=4) if t is not None else None
            for t in (cu_seqlens_q, cu_seqlens_k, seqused_q, seqused_k, cu_total_m_blocks_k)
        ]
        dQ_semaphore_tensor, dK_semaphore_tensor, dV_semaphore_tensor = [
            utils.convert_from_dlpack_leading_static(
                t.detach(), leading_dim=3, alignment=4, stride_order=t.dim_order()
            )
            if t is not None
            else None
            for t in (dQ_semaphore, dK_semaphore, dV_semaphore)
        ]
        if arch // 10 in [8, 12]:
            flash_bwd_obj_cls = (
                FlashSparseAttentionBackwardSm120
                if arch // 10 == 12
                else FlashSparseAttentionBackwardSm80
            )
            flash_bwd_obj_args = [
                dtype,
                head_dim,
                qhead_per_kvhead,
                m_block_size,
                n_block_size,
                num_stages_Q,
                num_threads,
                pack_gqa,
                causal,
                local,
                SdP_swapAB,
                dKV_swapAB,
                dQ_swapAB,
                AtomLayoutMSdP,
                AtomLayoutNdKV,
                AtomLayoutMdQ,
            ]
            fa_bwd_obj = flash_bwd_obj_cls(
                *flash_bwd_obj_args,
                V_in_regs=V_in_regs,
                score_mod=score_mod,
                score_mod_bwd=score_mod_bwd,
            )
        elif arch // 10 == 9:
            fa_bwd_obj = FlashSparseAttentionBackwardSm90(
                dtype,
                head_dim,
                qhead_per_kvhead,
                causal,
                is_local=local,
                deterministic=deterministic,
                tile_m=m_block_size,
                tile_n=n_block_size,
                Q_stage=num_stages_Q,
                PdS_stage=num_stages_PdS,
                SdP_swapAB=SdP_swapAB,
                dKV_swapAB=dKV_swapAB,
                dQ_swapAB=dQ_swapAB,
                AtomLayoutMSdP=AtomLayoutMSdP,
                AtomLayoutNdKV=AtomLayoutNdKV,
                AtomLayoutMdQ=AtomLayoutMdQ,
                num_threads=num_threads,
                V_in_regs=V_in_regs,
                score_mod=score_mod,
                score_mod_bwd=score_mod_bwd,
                mask_mod=mask_mod,
                has_aux_tensors=aux_tensors is not None,
                q_subtile_factor=q_subtile_factor,
                dQ_single_wg=dQ_single_wg,
            )
        else:
            fa_bwd_obj = FlashAttentionBackwardSm100(
                head_dim,
                is_causal=causal,
                is_local=local,
                qhead_per_kvhead=qhead_per_kvhead,
                tile_m=m_block_size,
                tile_n=n_block_size,
                cluster_size=cluster_size,
                use_2cta_instrs=use_2cta_instrs,
                deterministic=deterministic,
                spt=spt,
                score_mod=score_mod,
                score_mod_bwd=score_mod_bwd,
                mask_mod=mask_mod,
                has_aux_tensors=aux_tensors is not None,
                q_subtile_factor=q_subtile_factor,
                kv_subtile_factor=kv_subtile_factor,
            )

        # Block sparse tensors for backward use Q-direction indexing (transposed from forward).
        sparse_tensors_compile = None
        if normalized_block_sparse_tensors is not None:
            sparse_tensors_compile = to_cute_block_sparse_tensors(normalized_block_sparse_tensors)
        # TODO: check @can_implement
        compile_args = [
            fa_bwd_obj,
            q_tensor,
            k_tensor,
            v_tensor,
            do_tensor,
            lse_log2_tensor,
            dpsum_tensor,
            dq_accum_tensor,
            dk_tensor if not dKV_postprocess else dk_accum_tensor,
            dv_tensor if not dKV_postprocess else dv_accum_tensor,
            softmax_scale,
        ]
        if window_sizes is not None:
            compile_args.append(window_sizes_tensor)
        else:
            compile_args.append(None)
        if softmax_threshold is not None:
            compile_args.append(softmax_threshold)
        else:
            compile_args.append(0.0)
        compile_args.extend(
            [
                cu_seqlens_q_tensor,
                cu_seqlens_k_tensor,
                seqused_q_tensor,
                seqused_k_tensor,
                dQ_semaphore_tensor,
                dK_semaphore_tensor,
                dV_semaphore_tensor,
                AuxData(cute_aux_tensors, aux_scalars),
                sparse_tensors_compile,
            ]
        )
        compile_args.append(cu_total_m_blocks_k_tensor)
        compile_args.append(current_stream)
        _flash_attn_bwd.compile_cache[compile_key] = cute.compile(
            *compile_args,
            options="--enable-tvm-ffi",
        )
    if not fake_mode:
        call_args = [
            q.detach(),
            k.detach(),
            v.detach(),
            dout,
            lse_log2,
            dpsum,
            dq_accum,
            dk if not dKV_postprocess else dk_accum,
            dv if not dKV_postprocess else dv_accum,
            softmax_scale,
        ]
        if window_sizes is not None:
            call_args.append(window_sizes)
        else:
            call_args.append(None)
        if softmax_threshold is not None:
            call_args.append(softmax_threshold)
        else:
            call_args.append(0.0)
        call_args.extend(
            [
                cu_seqlens_q,
                cu_seqlens_k,
                seqused_q,
                seqused_k,
                dQ_semaphore,
                dK_semaphore,
                dV_semaphore,
                AuxData(aux_tensors, aux_scalars),
                (
                    normalized_block_sparse_tensors.mask_block_cnt,
                    normalized_block_sparse_tensors.mask_block_idx,
                    normalized_block_sparse_tensors.full_block_cnt,
                    normalized_block_sparse_tensors.full_block_idx,
                    normalized_block_sparse_tensors.cu_total_m_blocks,
                    normalized_block_sparse_tensors.cu_block_idx_offsets,
                    normalized_block_sparse_tensors.dq_write_order,
                    normalized_block_sparse_tensors.dq_write_order_full,
                )
                if normalized_block_sparse_tensors is not None
                else None,
            ]
        )
        call_args.append(cu_total_m_blocks_k)
        _flash_attn_bwd.compile_cache[compile_key](*call_args)
    # Postprocess: convert dq_accum from float32 to dq in bf16/fp16
    if arch // 10 == 8:
        num_threads_post_dQ = num_threads
        num_threads_post_dKV = num_threads
    elif arch // 10 == 9:
        # dQ postprocess: match main kernel's MMA WG count, unless dQ_single_wg
        num_threads_post_dQ = 128 if dQ_single_wg else cfg.num_wg * 128
        num_threads_post_dKV = cfg.num_wg * 128
    else:
        num_threads_post_dQ = 128
        num_threads_post_dKV = 128

    _bwd_postprocess_convert(
        dq_accum,
        dq,
        softmax_scale,
        cu_seqlens_q,
        seqused_q,
        arch,
        dtype,
        head_dim,
        m_block_size,
        num_threads_post_dQ,
        AtomLayoutMdQ,
        dQ_swapAB,
        use_2cta_instrs=use_2cta_instrs,
        cluster_size=1,
        cu_total_m_blocks=cu_total_m_blocks_q,
        sink_tensors=(
            LearnableSinkBwdTensors(dpsum, lse, learnable_sink, dsink)
            if learnable_sink is not None
            else None
        ),
        fake_mode=fake_mode,
        hdim_multiple_of=hdim_multiple_of,
    )

    if dKV_postprocess:
        # Postprocess: convert dk_accum from float32 to dk in bf16/fp16
        _bwd_postprocess_convert(
            dk_accum,
            dk,
            softmax_scale,
            cu_seqlens_k,
            seqused_k,
            arch,
            dtype,
            head_dim,
            n_block_size,
            num_threads_post_dKV,
            AtomLayoutNdKV,
            dKV_swapAB,
            cluster_size=cluster_size,
            cu_total_m_blocks=cu_total_m_blocks_k if cluster_size == 1 else None,
            fake_mode=fake_mode,
            hdim_multiple_of=hdim_multiple_of,
        )
        # Postprocess: convert dv_accum from float32 to dv in bf16/fp16
        _bwd_postprocess_convert(
            dv_accum,
            dv,
            1.0,
            cu_seqlens_k,
            seqused_k,
            arch,
            dtype,
            head_dim,
            n_block_size,
            num_threads_post_dKV,
            AtomLayoutNdKV,
            dKV_swapAB,
            cluster_size=cluster_size,
            cu_total_m_blocks=cu_total_m_blocks_k if cluster_size == 1 else None,
            fake_mode=fake_mode,
            hdim_multiple_of=hdim_multiple_of,
        )

    return (dq, dk, dv) if learnable_sink is None else (dq, dk, dv, dsink)


_flash_attn_bwd.compile_cache = get_jit_cache("bwd")


class FlashAttnFunc(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        softmax_scale: Optional[float] = None,
        is_causal: bool = False,
        window_sizes: Optional[torch.Tensor] = None,
        softmax_threshold: Optional[float] = None,
        is_local: bool = False,
        learnable_sink: Optional[torch.Tensor] = None,
        softcap: float = 0.0,
        num_splits: int = 1,
        pack_gqa: Optional[bool] = None,
        deterministic: bool = False,
        score_mod: Optional[Callable] = None,
        score_mod_bwd: Optional[Callable] = None,
        mask_mod: Optional[Callable] = None,
        aux_tensors: Optional[list] = None,
        aux_scalars: Optional[tuple] = None,
        block_sparse_tensors: Optional[BlockSparseTensorsTorch] = None,
        block_sparse_tensors_bwd: Optional[BlockSparseTensorsTorch] = None,
        return_lse: bool = False,
    ):
        aux_scalars = tuple(aux_scalars) if aux_scalars else None
        out, lse = _flash_attn_fwd(
            q,
            k,
            v,
            softmax_scale=softmax_scale,
            softmax_threshold=softmax_threshold,
            causal=is_causal,
            window_sizes=window_sizes,
            local=is_local,
            learnable_sink=learnable_sink,
            softcap=softcap,
            num_splits=num_splits,
            pack_gqa=pack_gqa,
            score_mod=score_mod,
            mask_mod=mask_mod,
            aux_tensors=aux_tensors,
            aux_scalars=aux_scalars,
            block_sparse_tensors=block_sparse_tensors,
            return_lse=return_lse,
        )
        ctx.save_for_backward(q, k, v, out, lse, learnable_sink, *(aux_tensors or ()))
        ctx.softmax_scale = softmax_scale
        ctx.is_causal = is_causal
        ctx.window_sizes = window_sizes
        ctx.softmax_threshold = softmax_threshold
        ctx.is_local = is_local
        ctx.softcap = softcap
        ctx.deterministic = deterministic
        ctx.return_lse = return_lse
        ctx.score_mod = score_mod
        ctx.score_mod_bwd = score_mod_bwd
        ctx.mask_mod = mask_mod
        ctx.aux_scalars = aux_scalars
        ctx.block_sparse_tensors_bwd = block_sparse_tensors_bwd
        ctx.set_materialize_grads(False)
        return out, lse

    @staticmethod
    def backward(ctx, dout, dlse):
        q, k, v, out, lse, learnable_sink, *aux = ctx.saved_tensors
        aux_tensors = aux if aux else None
        if not ctx.return_lse:
            dlse = None
        if dout is None:
            dout = torch.zeros_like(out)
        bwd_result = _flash_attn_bwd(
            q,
            k,
            v,
            out,
            dout,
            lse,
            ctx.softmax_scale,
            ctx.softmax_threshold,
            ctx.is_causal,
            ctx.softcap,
            window_sizes=ctx.window_sizes,
            local=ctx.is_local,
            deterministic=ctx.deterministic,
            score_mod=ctx.score_mod,
            score_mod_bwd=ctx.score_mod_bwd,
            mask_mod=ctx.mask_mod,
            aux_tensors=aux_tensors,
            aux_scalars=ctx.aux_scalars,
            block_sparse_tensors=ctx.block_sparse_tensors_bwd,
            dlse=dlse,
            learnable_sink=learnable_sink,
        )
        if learnable_sink is None:
            dq, dk, dv = bwd_result
            dsink = None
        else:
            dq, dk, dv, dsink = bwd_result
        return dq, dk, dv, None, None, None, None, None, dsink, *((None,) * 12)


class FlashAttnVarlenFunc(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        cu_seqlens_q: Optional[torch.Tensor] = None,
        cu_seqlens_k: Optional[torch.Tensor] = None,
        seqused_q: Optional[torch.Tensor] = None,
        seqused_k: Optional[torch.Tensor] = None,
        max_seqlen_q: Optional[int] = None,
        max_seqlen_k: Optional[int] = None,
        min_seqlen_k: Optional[int] = None,
        page_table: Optional[torch.Tensor] = None,
        softmax_scale: Optional[float] = None,
        is_causal: bool = False,
        window_sizes: Optional[torch.Tensor] = None,
        softmax_threshold: Optional[float] = None,
        is_local: bool = False,
        learnable_sink: Optional[torch.Tensor] = None,
        softcap: float = 0.0,
        num_splits: int = 1,
        pack_gqa: Optional[bool] = None,
        deterministic: bool = False,
        score_mod: Optional[Callable] = None,
        score_mod_bwd: Optional[Callable] = None,
        mask_mod: Optional[Callable] = None,
        block_sparse_tensors: Optional[list] = None,
        aux_tensors: Optional[list] = None,
        aux_scalars: Optional[tuple] = None,
        return_lse: bool = False,
        scheduler_metadata: Optional["SchedulerMetadataTensorsTorch"] = None,
        seqlen_k_per_split: Optional[int] = None,
        disable_scheduler_metadata: bool = False,
    ):
        aux_scalars = tuple(aux_scalars) if aux_scalars else None
        out, lse = _flash_attn_fwd(
            q,
            k,
            v,
            cu_seqlens_q=cu_seqlens_q,
            cu_seqlens_k=cu_seqlens_k,
            seqused_q=seqused_q,
            seqused_k=seqused_k,
            max_seqlen_q=max_seqlen_q,
            max_seqlen_k=max_seqlen_k,
            min_seqlen_k=min_seqlen_k,
            page_table=page_table,
            softmax_scale=softmax_scale,
            softmax_threshold=softmax_threshold,
            causal=is_causal,
            window_sizes=window_sizes,
            local=is_local,
            learnable_sink=learnable_sink,
            softcap=softcap,
            num_splits=num_splits,
            pack_gqa=pack_gqa,
            score_mod=score_mod,
            mask_mod=mask_mod,
            block_sparse_tensors=block_sparse_tensors,
            aux_tensors=aux_tensors,
            aux_scalars=aux_scalars,
            return_lse=return_lse,
            scheduler_metadata=scheduler_metadata,
            seqlen_k_per_split=seqlen_k_per_split,
            disable_scheduler_metadata=disable_scheduler_metadata,
        )
        ctx.save_for_backward(
            q,
            k,
            v,
            out,
            lse,
            learnable_sink,
            cu_seqlens_q,
            cu_seqlens_k,
            seqused_q,
            seqused_k,
            *(aux_tensors or ()),
        )
        ctx.softmax_scale = softmax_scale
        ctx.is_causal = is_causal
        ctx.window_sizes = window_sizes
        ctx.softmax_threshold = softmax_threshold
        ctx.is_local = is_local
        ctx.softcap = softcap
        ctx.deterministic = deterministic
        ctx.max_seqlen_q = max_seqlen_q
        ctx.max_seqlen_k = max_seqlen_k
        ctx.min_seqlen_k = min_seqlen_k
        ctx.return_lse = return_lse
        ctx.score_mod = score_mod
        ctx.score_mod_bwd = score_mod_bwd
        ctx.mask_mod = mask_mod
        ctx.aux_scalars = aux_scalars
        ctx.set_materialize_grads(False)
        return out, lse

    @staticmethod
    def backward(ctx, dout, dlse):
        (
            q,
            k,
            v,
            out,
            lse,
            learnable_sink,
            cu_seqlens_q,
            cu_seqlens_k,
            seqused_q,
            seqused_k,
            *aux,
        ) = ctx.saved_tensors
        aux_tensors = aux if aux else None
        if not ctx.return_lse:
            dlse = None
        if dout is None:
            dout = torch.zeros_like(out)
        bwd_result = _flash_attn_bwd(
            q,
            k,
            v,
            out,
            dout,
            lse,
            ctx.softmax_scale,
            ctx.softmax_threshold,
            ctx.is_causal,
            ctx.softcap,
            window_sizes=ctx.window_sizes,
            local=ctx.is_local,
            cu_seqlens_q=cu_seqlens_q,
            cu_seqlens_k=cu_seqlens_k,
            seqused_q=seqused_q,
            seqused_k=seqused_k,
            max_seqlen_q=ctx.max_seqlen_q,
            max_seqlen_k=ctx.max_seqlen_k,
            deterministic=ctx.deterministic,
            score_mod=ctx.score_mod,
            score_mod_bwd=ctx.score_mod_bwd,
            aux_tensors=aux_tensors,
            aux_scalars=ctx.aux_scalars,
            mask_mod=ctx.mask_mod,
            dlse=dlse,
            learnable_sink=learnable_sink,
        )
        if learnable_sink is None:
            dq, dk, dv = bwd_result
            dsink = None
        else:
            dq, dk, dv, dsink = bwd_result
        return dq, dk, dv, None, *((None,) * 12), dsink, *((None,) * 14)


def flash_attn_func(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    softmax_scale: Optional[float] = None,
    is_causal: bool = False,
    window_sizes: Optional[torch.Tensor] = None,
    softmax_threshold: Optional[float] = None,
    is_local: bool = False,
    learnable_sink: Optional[torch.Tensor] = None,
    softcap: float = 0.0,
    num_splits: int = 1,
    pack_gqa: Optional[bool] = None,
    deterministic: bool = False,
    score_mod: Optional[Callable] = None,
    score_mod_bwd: Optional[Callable] = None,
    mask_mod: Optional[Callable] = None,
    aux_tensors: Optional[list] = None,
    aux_scalars: Optional[tuple] = None,
    block_sparse_tensors: Optional[BlockSparseTensorsTorch] = None,
    block_sparse_tensors_bwd: Optional[BlockSparseTensorsTorch] = None,
    return_lse: bool = False,
):
    return FlashAttnFunc.apply(
        q,
        k,
        v,
        softmax_scale,
        is_causal,
        window_sizes,
        softmax_threshold,
        is_local,
        learnable_sink,
        softcap,
        num_splits,
        pack_gqa,
        deterministic,
        score_mod,
        score_mod_bwd,
        mask_mod,
        aux_tensors,
        aux_scalars,
        block_sparse_tensors,
        block_sparse_tensors_bwd,
        return_lse,
    )


def flash_attn_varlen_func(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    cu_seqlens_q: Optional[torch.Tensor] = None,
    cu_seqlens_k: Optional[torch.Tensor] = None,
    max_seqlen_q: Optional[int] = None,
    max_seqlen_k: Optional[int] = None,
    min_seqlen_k: Optional[int] = None,
    seqused_q: Optional[torch.Tensor] = None,
    seqused_k: Optional[torch.Tensor] = None,
    page_table: Optional[torch.Tensor] = None,
    softmax_scale: Optional[float] = None,
    is_causal: bool = False,
    window_sizes: Optional[torch.Tensor] = None,
    softmax_threshold: Optional[float] = None,
    is_local: bool = False,
    learnable_sink: Optional[torch.Tensor] = None,
    softcap: float = 0.0,
    num_splits: int = 1,
    pack_gqa: Optional[bool] = None,
    deterministic: bool = False,
    score_mod: Optional[Callable] = None,
    score_mod_bwd: Optional[Callable] = None,
    mask_mod: Optional[Callable] = None,
    block_sparse_tensors: Optional[BlockSparseTensorsTorch] = None,
    aux_tensors: Optional[list] = None,
    aux_scalars: Optional[tuple] = None,
    return_lse: bool = False,
    scheduler_metadata: Optional[SchedulerMetadataTensorsTorch] = None,
    seqlen_k_per_split: Optional[int] = None,
    disable_scheduler_metadata: bool = False,
):
    """
    Tensor arguments:
        q:  (total_q, nheads,   hdim)   or (batch, seqlen_q, nheads,   hdim)
        k:  (total_k, nheads_k, hdim)   or (batch, seqlen_k, nheads_k, hdim)
        v:  (total_k, nheads_k, hdim) or (batch, seqlen_k, nheads_k, hdim)
        cu_seqlens_q: (batch + 1)       or seqused_q: (batch)
        cu_seqlens_k: (batch + 1)       or seqused_k: (batch)
        page_table: (batch, max_num_pages_per_seq)

    Return:
       out: (total_q, nheads, hdim) or (batch, seqlen_q, nheads, hdim)
       lse: (nheads, total_q) or (batch, nheads, seqlen_q)
    """
    return FlashAttnVarlenFunc.apply(
        q,
        k,
        v,
        cu_seqlens_q,
        cu_seqlens_k,
        seqused_q,
        seqused_k,
        max_seqlen_q,
        max_seqlen_k,
        min_seqlen_k,
        page_table,
        softmax_scale,
        is_causal,
        window_sizes,
        softmax_threshold,
        is_local,
        learnable_sink,
        softcap,
        num_splits,
        pack_gqa,
        deterministic,
        score_mod,
        score_mod_bwd,
        mask_mod,
        block_sparse_tensors,
        aux_tensors,
        aux_scalars,
        return_lse,
        scheduler_metadata,
        seqlen_k_per_split,
        disable_scheduler_metadata,
    )


def _compile_fwd_combine(
    _arch,
    dtype,
    dtype_partial,
    head_dim,
    num_head,
    tile_m,
    k_block_size,
    log_max_splits,
    has_cu_seqlens,
    has_seqused,
    has_lse,
    has_virtual_batch_idx,
    has_num_splits_dynamic,
    has_semaphore_to_reset,
):
    """Compile fwd combine kernel using cute fake tensors (no real GPU tensors needed)."""
    sym = cute.sym_int
    div = 128 // dtype_partial.width  # 16-byte alignment in elements

    fa_combine = FlashAttentionForwardCombine(
        dtype=dtype,
        dtype_partial=dtype_partial,
        head_dim=head_dim,
        num_head=num_head,
        tile_m=tile_m,
        k_block_size=k_block_size,
        log_max_splits=log_max_splits,
    )
    if not fa_combine.can_implement(
        dtype,
        dtype_partial,
        head_dim,
        tile_m,
        k_block_size,
        log_max_splits,
        num_threads=256,
    ):
        raise RuntimeError(
            "FlashAttention combine kernel cannot be implemented with given parameters"
        )

    if has_cu_seqlens:
        # Varlen: (num_splits, total_q, nheads, headdim)
        num_splits, total_q, nheads = sym(), sym(), sym()
        mO_partial = fake_tensor(
            dtype_partial, (num_splits, total_q, nheads, head_dim), divisibility=div
        )
        mLSE_partial = fake_tensor(
            Float32, (num_splits, total_q, nheads), divisibility=1, leading_dim=1
        )
        mO = fake_tensor(dtype, (total_q, nheads, head_dim), divisibility=div)
        mLSE = (
            fake_tensor(Float32, (total_q, nheads), divisibility=1, leading_dim=0)
            if has_lse
            else None
        )
    else:
        # Batched: (num_splits, batch, seqlen, nheads, headdim)
        num_splits, batch, seqlen, nheads = sym(), sym(), sym(), sym()
        mO_partial = fake_tensor(
            dtype_partial, (num_splits, batch, seqlen, nheads, head_dim), divisibility=div
        )
        mLSE_partial = fake_tensor(
            Float32, (num_splits, batch, seqlen, nheads), divisibility=1, leading_dim=2
        )
        mO = fake_tensor(dtype, (batch, seqlen, nheads, head_dim), divisibility=div)
        mLSE = (
            fake_tensor(Float32, (batch, seqlen, nheads), divisibility=1, leading_dim=1)
            if has_lse
            else None
        )
        batch = mO_partial.shape[1]

    batch_for_1d = batch if not has_cu_seqlens else sym()
    batchp1 = sym()
    mCuSeqlens = fake_tensor(Int32, (batchp1,), divisibility=1) if has_cu_seqlens else None
    mSeqused = fake_tensor(Int32, (batch_for_1d,), divisibility=1) if has_seqused else None
    mNumSplitsDynamic = (
        fake_tensor(Int32, (batch_for_1d,), divisibility=1) if has_num_splits_dynamic else None
    )
    mVirtualBatchIdx = (
        fake_tensor(Int32, (batch_for_1d,), divisibility=1) if has_virtual_batch_idx else None
    )
    mSemaphore = fake_tensor(Int32, (1,), divisibility=1) if has_semaphore_to_reset else None

    return cute.compile(
        fa_combine,
        mO_partial,
        mLSE_partial,
        mO,
        mLSE,
        mCuSeqlens,
        mSeqused,
        mNumSplitsDynamic,
        mVirtualBatchIdx,
        mSemaphore,
        cute.runtime.make_fake_stream(use_tvm_ffi_env_stream=True),
        options="--enable-tvm-ffi",
    )


def _flash_attn_fwd_combine(
    out_partial: torch.Tensor,
    lse_partial: torch.Tensor,
    out: torch.Tensor,
    lse: Optional[torch.Tensor] = None,
    cu_seqlens: Optional[torch.Tensor] = None,
    seqused: Optional[torch.Tensor] = None,
    num_splits_dynamic_ptr: Optional[torch.Tensor] = None,
    virtual_batch_idx: Optional[torch.Tensor] = None,
    semaphore_to_reset: Optional[torch.Tensor] = None,
    *,
    _arch: Optional[int] = None,
) -> None:
    """Forward combine kernel for split attention computation.

    Combines partial outputs and log-sum-exp values from multiple splits
    of attention computation into final outputs.

    Args:
        out_partial: Partial outputs tensor (num_splits, batch, seqlen, nheads, headdim) or
                                            (num_splits, total_q, nheads, headdim) if there's cu_seqlens
        lse_partial: Partial LSE tensor (num_splits, batch, seqlen, nheads) or
                                       (num_splits, total_q, nheads) if there's cu_seqlens
        out: Output tensor (batch, seqlen, nheads, headdim) or (total_q, nheads, headdim) if there's cu_seqlens
        lse: Output LSE tensor (batch, seqlen, nheads) or (total_q, nheads) if there's cu_seqlens.
        cu_seqlens: Cumulative sequence lengths for variable length sequences
        seqused: Used sequence lengths for each batch
        num_splits_dynamic_ptr: Dynamic number of splits per batch
        semaphore_to_reset: Semaphore for synchronization
        k_block_size: Block size for head dimension

    Returns:
        None
    """
    fake_mode = is_fake_mode()
    assert out_partial.dtype in [torch.float16, torch.bfloat16, torch.float32], (
        "out_partial must be fp16, bf16, or fp32"
    )
    if not fake_mode:
        assert out_partial.is_cuda and lse_partial.is_cuda, "tensors must be on CUDA device"
    for tensor, name in (
        (cu_seqlens, "cu_seqlens"),
        (seqused, "seqused"),
        (num_splits_dynamic_ptr, "num_splits_dynamic_ptr"),
        (virtual_batch_idx, "virtual_batch_idx"),
        (semaphore_to_reset, "semaphore_to_reset"),
    ):
        if tensor is not None:
            if not fake_mode:
                assert tensor.is_cuda, f"{name} must be on CUDA device"
            assert tensor.is_contiguous(), f"{name} must be contiguous"
    head_dim = out_partial.shape[-1]
    num_head = out_partial.shape[-2]
    num_splits = out_partial.shape[0]
    assert num_splits <= 256
    # If hdim is 96 or 192, it's faster to round them to 128 or 256 respectively
    # so that kBlockM is smaller and we have more parallelism.
    k_block_size = 64 if head_dim <= 64 else 128
    # We want kBlockM to be as small as possible to maximize parallelism.
    # E.g., if hdim is 64, we want kBlockM to be 16 so that we can use 256 threads, each reading 4 elements (floats).
    tile_m = 8 if k_block_size % 128 == 0 else (16 if k_block_size % 64 == 0 else 32)
    log_max_splits = max(math.ceil(math.log2(num_splits)), 4)
    if tile_m == 8:
        # If kBlockM == 8 then the minimum number of splits is 32.
        # TODO: we can deal w this by using 128 threads instead
        log_max_splits = max(log_max_splits, 5)

    # Create combine kernel configuration
    dtype = torch2cute_dtype_map[out.dtype]
    dtype_partial = torch2cute_dtype_map[out_partial.dtype]
    compile_key = (
        _get_device_arch() if _arch is None else _arch,
        dtype,
        dtype_partial,
        head_dim,
        num_head,
        tile_m,
        k_block_size,
        log_max_splits,
        cu_seqlens is not None,
        seqused is not None,
        lse is not None,
        virtual_batch_idx is not None,
        num_splits_dynamic_ptr is not None,
        semaphore_to_reset is not None,
    )
    if compile_key not in _flash_attn_fwd_combine.compile_cache:
        _flash_attn_fwd_combine.compile_cache[compile_key] = _compile_fwd_combine(*compile_key)
    if not fake_mode:
        _flash_attn_fwd_combine.compile_cache[compile_key](
            out_partial,
            lse_partial,
            out,
            lse,
            cu_seqlens,
            seqused,
            num_splits_dynamic_ptr,
            virtual_batch_idx,
            semaphore_to_reset,
        )


_flash_attn_fwd_combine.compile_cache = get_jit_cache("fwd_combine")


def flash_attn_combine(
    out_partial: torch.Tensor,
    lse_partial: torch.Tensor,
    out: Optional[torch.Tensor] = None,
    out_dtype: Optional[torch.dtype] = None,
    cu_seqlens: Optional[torch.Tensor] = None,
    seqused: Optional[torch.Tensor] = None,
    virtual_batch_idx: Optional[torch.Tensor] = None,
    return_lse: bool = True,
) -> Tuple[torch.Tensor, Optional[torch.Tensor]]:
    """Flash Attention combine function for split attention computation.

    Combines partial outputs and log-sum-exp values from multiple splits
    of attention computation into final outputs. This is the main user-facing
    interface for the combine kernel.

    Args:
        out_partial: Partial outputs tensor with shape:
            - (num_splits, batch_size, seqlen, num_heads, head_size) for regular batched input
            - (num_splits, total_q, num_heads, head_size) for variable length input
        lse_partial: Partial LSE tensor with shape:
            - (num_splits, batch_size, seqlen, num_heads) for regular batched input
            - (num_splits, total_q, num_heads) for variable length input
        out: Optional output tensor. If None, will be created automatically.
        out_dtype: Optional output dtype. If None, will use fp16/bf16 based on input.
        cu_seqlens: Cumulative sequence lengths for variable length sequences
        seqused: Used sequence lengths for each batch
        virtual_batch_idx: Optional mapping from virtual batch index to real batch index
            (int32 tensor of shape (batch_size,)). Used by persistent tile schedulers
            that reorder batch processing for load balancing.
        return_lse: Whether to return the combined LSE tensor. Default is True.

    Returns:
        Tuple of (out, lse) where:
        - out: Combined output tensor with shape (batch_size, seqlen, num_heads, head_size)
              or (total_q, num_heads, head_size) for varlen
        - lse: Combined log-sum-exp tensor with shape (batch_size, seqlen, num_heads)
              or (total_q, num_heads) for varlen. None if return_lse=False

    Note:
        This function expects the input tensors to be in the format produced by
        split attention computation, where the first dimension is num_splits.
        The permuting from user format to kernel format is now done inside the kernel.
    """
    # Input validation
    assert out_partial.dim() in [4, 5], "out_partial must have 4 or 5 dimensions"
    # Determine if this is variable length based on dimensions
    is_varlen = out_partial.dim() == 4
    if is_varlen:
        # Variable length: (num_splits, total_q, num_heads, head_size)
        num_splits, total_q, num_heads, head_size = out_partial.shape
        batch_size = 1  # Treat as single batch for varlen
        seqlen = total_q
    else:
        # Regular batched: (num_splits, batch_size, seqlen, num_heads, head_size)
        num_splits, batch_size, seqlen, num_heads, head_size = out_partial.shape
    # Determine output dtype
    if out_dtype is None:
        out_dtype = out_partial.dtype
    # Create output if not provided
    device = out_partial.device
    if out is None:
        if is_varlen:
            out = torch.empty(total_q, num_heads, head_size, dtype=out_dtype, device=device)
        else:
            out = torch.empty(
                batch_size, seqlen, num_heads, head_size, dtype=out_dtype, device=device
            )
    # Create lse output only if requested
    if return_lse:
        if is_varlen:
            lse = torch.empty(num_heads, total_q, dtype=torch.float32, device=device)
        else:
            lse = torch.empty(batch_size, num_heads, seqlen, dtype=torch.float32, device=device)
        lse = lse.transpose(-1, -2)
    else:
        lse = None
    _flash_attn_fwd_combine(
        out_partial,
        lse_partial,
        out,
        lse,
        cu_seqlens,
        seqused,
        virtual_batch_idx=virtual_batch_idx,
    )
    return out, lse


def _resolve_causal_local_window(causal, window_size_left, window_size_right):
    """Resolve causal/local/window settings into canonical form.

    Returns (causal, local, window_size_left, window_size_right).
    """
    if causal:
        window_size_left = None
        window_size_right = 0
        local = False
    elif window_size_left is not None or window_size_right is not None:
        causal = False
        local = True
        if window_size_left is None:
            window_size_left = -1
        if window_size_right is None:
            window_size_right = -1
    else:
        local = False
    return causal, local, window_size_left, window_size_right


def _get_scheduler_metadata(
    num_batch: int,
    max_seqlen_q: int,
    max_seqlen_k: int,
    nheads: int,
    nheads_kv: int,
    headdim: int,
    num_splits: int,
    tile_m: int,
    tile_n: int,
    pack_gqa: Optional[bool] = False,
    q_stage: int = 1,
    cluster_shape_m: int = 1,
    causal: bool = False,
    enable_pdl: bool = False,
    sort: bool = False,
    seqlen_k_new: int = 0,
    cu_seqlens_q: Optional[torch.Tensor] = None,
    cu_seqlens_k: Optional[torch.Tensor] = None,
    cu_seqlens_k_new: Optional[torch.Tensor] = None,
    seqused_q: Optional[torch.Tensor] = None,
    seqused_k: Optional[torch.Tensor] = None,
    leftpad_k: Optional[torch.Tensor] = None,
    seqlen_k_per_split: Optional[int] = None,
    zfill_padded_output: bool = True,
    total_q: Optional[int] = None,
    use_clc_scheduler: bool = False,
) -> SchedulerMetadataTensorsTorch:
    device = None
    for t in [cu_seqlens_q, cu_seqlens_k, seqused_q, seqused_k]:
        if t is not None:
            device = t.device
            break
    if device is None:
        raise ValueError(
            "At least one of cu_seqlens_q, cu_seqlens_k, seqused_q, seqused_k must be provided on device"
        )

    # Override enable_pdl (not supported yet)
    enable_pdl = False

    assert not sort, "LPT batch sort not yet implemented"

    if seqlen_k_per_split is not None:
        assert seqlen_k_per_split % tile_n == 0, "seqlen per split must be divisible by tile_n"
        n_blocks_per_split = seqlen_k_per_split // tile_n
        n_blocks_total = (max_seqlen_k + seqlen_k_new + tile_n - 1) // tile_n
        splits_needed = (n_blocks_total + n_blocks_per_split - 1) // n_blocks_per_split
        assert num_splits >= splits_needed, (
            f"seqlen_k_per_split={seqlen_k_per_split} needs num_splits>={splits_needed}, "
            f"got {num_splits}"
        )
    else:
        n_blocks_per_split = None

    is_split_kv = num_splits > 1
    needs_prepare_kernel = is_split_kv or causal or sort

    if needs_prepare_kernel:
        num_m_blocks = torch.empty(num_batch, dtype=torch.int32, device=device)
        num_splits_dynamic = torch.empty(num_batch, dtype=torch.int32, device=device)
        virtual_batch_idx = (
            torch.empty(num_batch, dtype=torch.int32, device=device) if sort else None
        )
        num_nheads_in_l2 = (
            torch.empty(num_batch, dtype=torch.int32, device=device) if causal else None
        )
        tile_count_semaphore = (
            torch.empty(1, dtype=torch.int32, device=device) if not use_clc_scheduler else None
        )

        num_warps = min((num_batch + 30) // 31, 32)
        num_warps = 1 << (num_warps - 1).bit_length()

        cache_key = (
            num_warps,
            tile_m,
            tile_n,
            nheads,
            nheads_kv,
            headdim,
            headdim,
            causal,
            pack_gqa,
            enable_pdl,
            sort,
            cu_seqlens_q is not None,
            cu_seqlens_k is not None,
            cu_seqlens_k_new is not None,
            seqused_q is not None,
            seqused_k is not None,
            leftpad_k is not None,
            num_m_blocks is not None,
            num_splits_dynamic is not None,
            virtual_batch_idx is not None,
            num_nheads_in_l2 is not None,
            tile_count_semaphore is not None,
            n_blocks_per_split is not None,
            zfill_padded_output,
        )

        if cache_key not in _get_scheduler_metadata.compile_cache:
            (
                num_m_blocks_cute,
                num_splits_dynamic_cute,
                virtual_batch_idx_cute,
                num_nheads_in_l2_cute,
                tile_count_semaphore_cute,
                cu_seqlens_q_cute,
                cu_seqlens_k_cute,
                cu_seqlens_k_new_cute,
                seqused_q_cute,
                seqused_k_cute,
                leftpad_k_cute,
            ) = [
                to_cute_tensor(t, assumed_align=4) if t is not None else None
                for t in (
                    num_m_blocks,
                    num_splits_dynamic,
                    virtual_batch_idx,
                    num_nheads_in_l2,
                    tile_count_semaphore,
                    cu_seqlens_q,
                    cu_seqlens_k,
                    cu_seqlens_k_new,
                    seqused_q,
                    seqused_k,
                    leftpad_k,
                )
            ]
            scheduler = FlashPrepareScheduler(
                num_warps,
                tile_m,
                tile_n,
                nheads,
                nheads_kv,
                headdim,
                headdim,
                causal,
                packgqa=pack_gqa,
                sort=sort,
                zfill_padded_output=zfill_padded_output,
            )
            _get_scheduler_metadata.compile_cache[cache_key] = cute.compile(
                scheduler,
                max_seqlen_q,
                max_seqlen_k,
                seqlen_k_new,
                cu_seqlens_q_cute,
                cu_seqlens_k_cute,
                cu_seqlens_k_new_cute,
                seqused_q_cute,
                seqused_k_cute,
                leftpad_k_cute,
                num_batch,
                num_splits,
                tile_count_semaphore_cute,
                num_m_blocks_cute,
                num_splits_dynamic_cute,
                virtual_batch_idx_cute,
                num_nheads_in_l2_cute,
                n_blocks_per_split,
                cute.runtime.make_fake_stream(use_tvm_ffi_env_stream=True),
                options="--enable-tvm-ffi",
            )

        if not is_fake_mode():
            _get_scheduler_metadata.compile_cache[cache_key](
                max_seqlen_q,
                max_seqlen_k,
                seqlen_k_new,
                cu_seqlens_q,
                cu_seqlens_k,
                cu_seqlens_k_new,
                seqused_q,
                seqused_k,
                leftpad_k,
                num_batch,
                num_splits,
                tile_count_semaphore,
                num_m_blocks,
                num_splits_dynamic,
                virtual_batch_idx,
                num_nheads_in_l2,
                n_blocks_per_split,
            )
    else:
        num_m_blocks = None
        num_splits_dynamic = None
        virtual_batch_idx = None
        num_nheads_in_l2 = None
        tile_count_semaphore = None

    qhead_per_kvhead = nheads // nheads_kv
    # binary-search hint; only consumed by the single-tile scheduler above this batch
    has_varlen_info = cu_seqlens_q is not None or seqused_q is not None
    needs_compute_tile_cumsum = (
        has_varlen_info and num_batch > BIN_BATCH_SEARCH_THRESH and tile_count_semaphore is None
    )
    if needs_compute_tile_cumsum:
        cu_total_m_blocks, cu_total_splits_m_blocks = _compute_tile_cumsum(
            num_m_blocks=num_m_blocks,
            cu_seqlens=cu_seqlens_q,
            seqused=seqused_q,
            num_splits_dynamic=num_splits_dynamic,
            virtual_batch_idx=virtual_batch_idx,
            tile_size=tile_m,
            q_stage=q_stage,
            cluster_shape_m=cluster_shape_m,
            qhead_per_kvhead=qhead_per_kvhead,
            pack_gqa=bool(pack_gqa),
        )
    else:
        cu_total_m_blocks, cu_total_splits_m_blocks = None, None

    blocks_to_batch_idx = None
    if USE_BLOCKS_TO_BATCH and cu_total_m_blocks is not None:
        blocks_to_batch_idx = _compute_blocks_to_batch(
            cu_total_m_blocks,
            _blocks_to_batch_size(
                total_q if total_q is not None else num_batch * max_seqlen_q,
                num_batch,
                tile_m,
                qhead_per_kvhead,
                pack_gqa,
            ),
            cu_total_m_blocks.device,
        )

    return SchedulerMetadataTensorsTorch(
        num_m_blocks_ptr=num_m_blocks,
        num_splits_dynamic_ptr=num_splits_dynamic,
        virtual_batch_idx_ptr=virtual_batch_idx,
        num_nheads_in_l2_ptr=num_nheads_in_l2,
        tile_count_semaphore=tile_count_semaphore,
        cu_total_m_blocks=cu_total_m_blocks,
        cu_total_splits_m_blocks=cu_total_splits_m_blocks,
        blocks_to_batch_idx=blocks_to_batch_idx,
    )


_get_scheduler_metadata.compile_cache = get_jit_cache("scheduler_metadata")


def get_scheduler_metadata(
    max_seqlen_q: int,
    max_seqlen_k: int,
    nheads: int,
    nheads_kv: int,
    headdim: int,
    num_splits: int,
    pack_gqa: Optional[int] = None,
    causal: bool = False,
    window_size_left: Optional[int] = None,
    window_size_right: Optional[int] = None,
    seqlen_k_new: int = 0,
    cu_seqlens_q: Optional[torch.Tensor] = None,
    cu_seqlens_k: Optional[torch.Tensor] = None,
    cu_seqlens_k_new: Optional[torch.Tensor] = None,
    seqused_q: Optional[torch.Tensor] = None,
    seqused_k: Optional[torch.Tensor] = None,
    leftpad_k: Optional[torch.Tensor] = None,
    seqlen_k_per_split: Optional[int] = None,
    _arch: Optional[int] = None,
) -> SchedulerMetadataTensorsTorch:
    """Prepares metadata tensors used by varlen tile schedulers (SingleTileVarlenScheduler
    and DynamicPersistentVarlenScheduler)

    Explanation of selected args:
        num_splits: maximum number of splits per batch entry that the prepare kernel can emit
        seqlen_k_per_split: for bitwise reproducibility between forward and backward, can fix
            an exact seqlen_k per split; num_splits is calculated accordingly.

    Returns
        SchedulerMetadataTensorsTorch, a named tuple including:
        - num_splits_dynamic_ptr: per-batch num_splits
        - num_nheads_in_l2_ptr: used for head swizzle to avoid l2 cache thrashing
        - tile_count_semaphore: the global semaphore used by DynamicPersistentVarlenScheduler atomic incrementation
        - cu_total_m_blocks: cumsum tensor counting total m_blocks, used for binary batch search with large batch_size
        - cu_total_splits_m_blocks: complementary cumsum tensor used for binary batch search and to
            extract dynamic num splits in the absense of num_splits_dynamic_ptr
    """
    arch = _get_device_arch() if _arch is None else _arch

    batch_sizes = {}
    if cu_seqlens_q is not None:
        batch_sizes["cu_seqlens_q"] = cu_seqlens_q.shape[0] - 1
    if cu_seqlens_k is not None:
        batch_sizes["cu_seqlens_k"] = cu_seqlens_k.shape[0] - 1
    if seqused_q is not None:
        batch_sizes["seqused_q"] = seqused_q.shape[0]
    if seqused_k is not None:
        batch_sizes["seqused_k"] = seqused_k.shape[0]
    assert batch_sizes, (
        "get_scheduler_metadata requires at least one of "
        "cu_seqlens_q/cu_seqlens_k/seqused_q/seqused_k"
    )
    num_batch = next(iter(batch_sizes.values()))
    assert all(b == num_batch for b in batch_sizes.values()), (
        f"inconsistent batch size across inputs: {batch_sizes}"
    )
    device = next(
        t.device for t in (cu_seqlens_q, cu_seqlens_k, seqused_q, seqused_k) if t is not None
    )

    causal, local, window_size_left, window_size_right = _resolve_causal_local_window(
        causal, window_size_left, window_size_right
    )

    qhead_per_kvhead = nheads // nheads_kv
    if pack_gqa is None:
        pack_gqa = qhead_per_kvhead > 1

    fwd_cfg = _get_fwd_config(
        arch=arch,
        head_dim=headdim,
        causal=causal,
        local=local,
        window_size_left=window_size_left,
        window_size_right=window_size_right,
        max_seqlen_q=max_seqlen_q,
        max_seqlen_k=max_seqlen_k,
        qhead_per_kvhead=qhead_per_kvhead,
        pack_gqa=pack_gqa,
        batch_size=num_batch,
        num_head_kv=nheads_kv,
        num_splits=num_splits,
        device=device,
    )
    tile_m, tile_n = fwd_cfg.m_block_size, fwd_cfg.n_block_size
    q_stage = fwd_cfg.q_stage
    num_splits = fwd_cfg.num_splits

    return _get_scheduler_metadata(
        num_batch,
        max_seqlen_q,
        max_seqlen_k,
        nheads,
        nheads_kv,
        headdim,
        num_splits,
        tile_m,
        tile_n,
        pack_gqa=pack_gqa,
        q_stage=q_stage,
        causal=causal,
        enable_pdl=False,  # pdl not yet enabled
        sort=False,  # LPT batch sort not yet enabled
        seqlen_k_new=seqlen_k_new,
        cu_seqlens_q=cu_seqlens_q,
        cu_seqlens_k=cu_seqlens_k,
        cu_seqlens_k_new=cu_seqlens_k_new,
        seqused_q=seqused_q,
        seqused_k=seqused_k,
        leftpad_k=leftpad_k,
        seqlen_k_per_split=seqlen_k_per_split,
        zfill_padded_output=True,
        use_clc_scheduler=utils._get_use_clc_scheduler_default(),
    )
