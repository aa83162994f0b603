"""HF-compatible cache layer: KIVI-style residual window + ZeroKV polar/QJL body."""

from __future__ import annotations

from typing import Any, Dict, Optional

import torch

from transformers.cache_utils import QuantizedLayer

from zerokv.hadamard import MAX_FWHT_REST_DIM
from zerokv.quant import (
    CompressedBlock,
    _proto_matrix,
    compress_kv_tensor,
    decompress_kv_tensor,
    empty_prefix_compressed_block,
    kv_tensor_to_work_flat,
    kv_work_dimensions,
)
from zerokv.online_adapt import update_proto_from_kv_rest
from zerokv.profiler import ZeroKVProfiler


def _merge_scatter_kv_along_seq(
    base: torch.Tensor,
    heavy: torch.Tensor,
    pos_sorted: torch.Tensor,
    total_len: int,
) -> torch.Tensor:
    """
    Interleave `heavy` at absolute positions `pos_sorted` into a length-`total_len` sequence;
    fill remaining slots in order from `base` (length total_len - k).
    """
    k = heavy.shape[-2]
    if k == 0:
        assert base.shape[-2] == total_len
        return base
    B, H, Sb, D = base.shape
    assert Sb + k == total_len
    device = base.device
    idx = torch.arange(total_len, device=device)
    mask = torch.ones(total_len, dtype=torch.bool, device=device)
    mask[pos_sorted] = False
    rest_pos = idx[mask]
    assert rest_pos.numel() == Sb
    out = base.new_zeros((B, H, total_len, D))
    out[:, :, pos_sorted, :] = heavy
    out[:, :, rest_pos, :] = base
    return out


class ZeroKVNeoQuantizedLayer(QuantizedLayer):
    """
    Extends HuggingFace `QuantizedLayer` (KIVI update semantics) with Adaptive Polar + QJL
    compression for the quantized bulk; last `sliding_window` tokens stay in FP16 tail (Precision Guard).

    Optional **heavy-hitter** slots (H2O-style FP retention): on flush, up to `heavy_hitter_budget`
    tokens from the prefix (excluding the newest `residual_length` positions) stay in FP.

    - Default score: mean |K| per position (proxy).
    - If `update(..., cache_kwargs={"zerokv_heavy_hitter_scores": tensor})` is passed and `tensor` has length
      ≥ prefix length, **top scores** win (attention-style ranking when you supply e.g. last-step attention
      weights aligned to token indices). HF `generate` does not set this; use a custom wrapper/hook.
    """

    is_sliding = False

    def __init__(
        self,
        sliding_window: int = 256,
        r_bits: int = 3,
        theta_bits: int = 2,
        qjl_dim: int = 8,
        outlier_fraction: Optional[float] = None,
        layer_idx: int = 0,
        hadamard_rest: bool = True,
        max_fwht_rest_dim: int = MAX_FWHT_REST_DIM,
        heavy_hitter_budget: int = 0,
        outlier_boost: float = 1.0,
        online_adapt: bool = False,
        online_adapt_lr: float = 0.05,
        online_adapt_momentum: float = 0.9,
        online_adapt_reset_interval: int = 0,
        residual_bits: int = 1,
    ):
        super().__init__(
            nbits=4,
            axis_key=0,
            axis_value=0,
            q_group_size=64,
            residual_length=sliding_window,
        )
        self.sliding_window = sliding_window
        self.r_bits = r_bits
        self.theta_bits = theta_bits
        self.qjl_dim = qjl_dim
        self.outlier_fraction = outlier_fraction
        self.layer_idx = layer_idx
        self.hadamard_rest = hadamard_rest
        self.max_fwht_rest_dim = int(max_fwht_rest_dim)
        self.heavy_hitter_budget = max(0, int(heavy_hitter_budget))
        self.outlier_boost = max(1.0, float(outlier_boost))
        self.online_adapt = bool(online_adapt)
        self.online_adapt_lr = float(online_adapt_lr)
        self.online_adapt_momentum = float(online_adapt_momentum)
        self.online_adapt_reset_interval = max(0, int(online_adapt_reset_interval))
        self._proto_k: Optional[torch.Tensor] = None
        self._proto_v: Optional[torch.Tensor] = None
        self._proto_k0: Optional[torch.Tensor] = None
        self._proto_v0: Optional[torch.Tensor] = None
        self._mom_k: Optional[torch.Tensor] = None
        self._mom_v: Optional[torch.Tensor] = None
        self._online_inited = False
        self._flush_count = 0
        self.max_cache_len = -1
        self.max_batch_size = 1
        self.residual_bits = max(1, min(4, int(residual_bits)))

    def _adaptive_outlier_fraction(self) -> float:
        """Precision Guard: cycle 8%–12% across layers (Genesis spec)."""
        steps = (0.08, 0.09, 0.10, 0.11, 0.12)
        return steps[self.layer_idx % len(steps)]

    def _clear_heavy(self, ref: torch.Tensor) -> None:
        B, H, D = ref.shape[0], ref.shape[1], ref.shape[3]
        self._hh_pos = torch.empty(0, dtype=torch.long, device=ref.device)
        self._hh_keys = ref.new_empty((B, H, 0, D))
        self._hh_values = ref.new_empty((B, H, 0, D))

    def lazy_initialization(self, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        # transformers >= 4.57 passes value_states; older versions don't
        try:
            super().lazy_initialization(key_states, value_states)
        except TypeError:
            super().lazy_initialization(key_states)
        self.max_batch_size = int(key_states.shape[0])
        self._clear_heavy(key_states)

    def _effective_outlier_fraction(self) -> float:
        of = self.outlier_fraction if self.outlier_fraction is not None else self._adaptive_outlier_fraction()
        return min(0.18, float(of) * self.outlier_boost)

    def _ensure_online_prototypes(self, ref: torch.Tensor) -> None:
        if not self.online_adapt or self._online_inited:
            return
        d = int(ref.shape[-1])
        device = ref.device
        dtype = torch.float32
        seed_k = 10007 * (self.layer_idx + 1)
        seed_v = seed_k + 9973
        _dp_orig, dp_work, _had = kv_work_dimensions(
            d,
            self._effective_outlier_fraction(),
            self.hadamard_rest,
            max_fwht_rest_dim=self.max_fwht_rest_dim,
        )
        n_proto = 2**self.theta_bits
        self._proto_k = _proto_matrix(dp_work, n_proto, device, dtype, seed_k)
        self._proto_v = _proto_matrix(dp_work, n_proto, device, dtype, seed_v)
        self._proto_k0 = self._proto_k.clone()
        self._proto_v0 = self._proto_v.clone()
        self._mom_k = None
        self._mom_v = None
        self._online_inited = True

    def _online_after_flush(self, keys_full: torch.Tensor, values_full: torch.Tensor) -> None:
        if not self.online_adapt or not self._online_inited:
            return
        assert self._proto_k is not None and self._proto_v is not None
        of = self._effective_outlier_fraction()
        xk = kv_tensor_to_work_flat(
            keys_full,
            outlier_fraction=of,
            hadamard_rest=self.hadamard_rest,
            max_fwht_rest_dim=self.max_fwht_rest_dim,
        )
        xv = kv_tensor_to_work_flat(
            values_full,
            outlier_fraction=of,
            hadamard_rest=self.hadamard_rest,
            max_fwht_rest_dim=self.max_fwht_rest_dim,
        )
        self._proto_k, self._mom_k = update_proto_from_kv_rest(
            self._proto_k,
            xk,
            self.online_adapt_lr,
            momentum_buffer=self._mom_k,
            momentum=self.online_adapt_momentum,
        )
        self._proto_v, self._mom_v = update_proto_from_kv_rest(
            self._proto_v,
            xv,
            self.online_adapt_lr,
            momentum_buffer=self._mom_v,
            momentum=self.online_adapt_momentum,
        )
        self._flush_count += 1
        ri = self.online_adapt_reset_interval
        if ri > 0 and self._flush_count % ri == 0:
            self._proto_k.copy_(self._proto_k0)  # type: ignore[union-attr]
            self._proto_v.copy_(self._proto_v0)  # type: ignore[union-attr]
            self._mom_k = None
            self._mom_v = None

    def _quantize(self, tensor: torch.Tensor, axis: int) -> CompressedBlock:
        of = self._effective_outlier_fraction()
        proto_override = None
        if self.online_adapt:
            self._ensure_online_prototypes(tensor)
            proto_override = self._proto_k if axis == self.axis_key else self._proto_v
        return compress_kv_tensor(
            tensor,
            r_bits=self.r_bits,
            theta_bits=self.theta_bits,
            qjl_dim=self.qjl_dim,
            outlier_fraction=of,
            layer_seed=10007 * (self.layer_idx + 1),
            hadamard_rest=self.hadamard_rest,
            max_fwht_rest_dim=self.max_fwht_rest_dim,
            proto=proto_override,
            residual_bits=self.residual_bits,
        )

    def _dequantize(self, q_tensor: CompressedBlock) -> torch.Tensor:
        return decompress_kv_tensor(q_tensor, device=self.keys.device).to(self.keys.dtype)

    def _flush_quantized(
        self,
        keys_to_return: torch.Tensor,
        values_to_return: torch.Tensor,
        ref: torch.Tensor,
        cache_kwargs: Optional[Dict[str, Any]] = None,
    ) -> None:
        """Keep in sync with `transformers.QuantizedLayer.update` flush branch."""
        profiler = ZeroKVProfiler.instance()

        S = keys_to_return.shape[-2]
        L = self.residual_length
        b = self.heavy_hitter_budget
        B, H, _, D = keys_to_return.shape

        with profiler.timer("flush_quantize", input_shape=str(keys_to_return.shape)):
            if b <= 0 or S <= L:
                if self.online_adapt:
                    self._ensure_online_prototypes(keys_to_return)
                self._quantized_keys = self._quantize(keys_to_return.contiguous(), axis=self.axis_key)
                self._quantized_values = self._quantize(values_to_return.contiguous(), axis=self.axis_value)
                self._online_after_flush(keys_to_return, values_to_return)
                self._clear_heavy(ref)
                self.keys = torch.tensor([], dtype=ref.dtype, device=ref.device)
                self.values = torch.tensor([], dtype=ref.dtype, device=ref.device)
                return

            ncand = S - L
            ext = None
            if cache_kwargs is not None:
                raw = cache_kwargs.get("zerokv_heavy_hitter_scores")
                if raw is not None and torch.is_tensor(raw):
                    s = raw.flatten().float().to(keys_to_return.device)
                    if s.numel() >= ncand:
                        ext = s[:ncand]
            if ext is not None:
                scores = ext
            else:
                scores = keys_to_return.abs().mean(dim=(0, 1, 3))[:ncand]
            k_take = min(b, int(scores.numel()))
            prot = torch.topk(scores, k=k_take, largest=True).indices
            prot, _ = torch.sort(prot)
            mask = torch.ones(S, dtype=torch.bool, device=keys_to_return.device)
            mask[prot] = False
            rest_idx = mask.nonzero(as_tuple=False).squeeze(-1)
            k_rest = keys_to_return.index_select(-2, rest_idx)
            v_rest = values_to_return.index_select(-2, rest_idx)
            if self.online_adapt:
                self._ensure_online_prototypes(keys_to_return)
            self._quantized_keys = self._quantize(k_rest.contiguous(), axis=self.axis_key)
            self._quantized_values = self._quantize(v_rest.contiguous(), axis=self.axis_value)
            self._online_after_flush(keys_to_return, values_to_return)
            self._hh_keys = keys_to_return.index_select(-2, prot)
            self._hh_values = values_to_return.index_select(-2, prot)
            self._hh_pos = prot.clone()
            self.keys = torch.tensor([], dtype=ref.dtype, device=ref.device)
            self.values = torch.tensor([], dtype=ref.dtype, device=ref.device)

    def update(
        self,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        cache_kwargs: Optional[Dict[str, Any]] = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        profiler = ZeroKVProfiler.instance()
        self.cumulative_length += key_states.shape[-2]

        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
            self._quantized_keys = empty_prefix_compressed_block(key_states)
            self._quantized_values = empty_prefix_compressed_block(value_states)
            self.keys = key_states
            self.values = value_states
            return key_states, value_states

        with profiler.timer("decompress"):
            dequant_keys = self._dequantize(self._quantized_keys)
            dequant_values = self._dequantize(self._quantized_values)
        if self._hh_pos.numel() > 0:
            total_len = dequant_keys.shape[-2] + self._hh_pos.numel()
            dequant_keys = _merge_scatter_kv_along_seq(dequant_keys, self._hh_keys, self._hh_pos, total_len)
            dequant_values = _merge_scatter_kv_along_seq(dequant_values, self._hh_values, self._hh_pos, total_len)

        keys_to_return = torch.cat([dequant_keys, self.keys, key_states], dim=-2)
        values_to_return = torch.cat([dequant_values, self.values, value_states], dim=-2)
        if self.keys.dim() == 4 and self.keys.shape[-2] + 1 >= self.residual_length:
            self._flush_quantized(keys_to_return, values_to_return, key_states, cache_kwargs)
        else:
            self.keys = torch.cat([self.keys, key_states], dim=-2)
            self.values = torch.cat([self.values, value_states], dim=-2)

        return keys_to_return, values_to_return

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        """Reorder all batch-dimension state for beam search."""
        if not self.is_initialized:
            return

        beam_idx = beam_idx.to(self.keys.device)
        new_batch_size = beam_idx.numel()

        if self.keys.dim() == 4 and self.keys.shape[0] > 0:
            self.keys = self.keys.index_select(0, beam_idx)
            self.values = self.values.index_select(0, beam_idx)

        if hasattr(self, '_hh_keys') and self._hh_keys.dim() == 4 and self._hh_keys.shape[0] > 0:
            self._hh_keys = self._hh_keys.index_select(0, beam_idx)
            self._hh_values = self._hh_values.index_select(0, beam_idx)

        self._quantized_keys = self._reorder_compressed_block(
            self._quantized_keys, beam_idx, axis=self.axis_key
        )
        self._quantized_values = self._reorder_compressed_block(
            self._quantized_values, beam_idx, axis=self.axis_value
        )

        self.max_batch_size = max(self.max_batch_size, new_batch_size)

    def _reorder_compressed_block(
        self,
        block: CompressedBlock,
        beam_idx: torch.LongTensor,
        axis: int,
    ) -> CompressedBlock:
        """Reorder CompressedBlock via dequantize → index_select → re-quantize."""
        p = block.payload

        if p.get("zerokv_empty_prefix"):
            ref = p.get("_ref")
            if ref is not None and torch.is_tensor(ref):
                orig_shape = p["shape"]
                B, H, S, D = orig_shape
                new_B = beam_idx.numel()
                new_shape = torch.Size([new_B, H, S, D])
                new_ref = ref.new_zeros((new_B * H * S * D,))
                return CompressedBlock({
                    "zerokv_empty_prefix": True,
                    "shape": new_shape,
                    "_ref": new_ref,
                })
            return block

        fp_tensor = decompress_kv_tensor(block, device=self.keys.device)
        reordered = fp_tensor.index_select(0, beam_idx)

        of = self._effective_outlier_fraction()
        proto_override = None
        if self.online_adapt and self._online_inited:
            proto_override = self._proto_k if axis == self.axis_key else self._proto_v

        return compress_kv_tensor(
            reordered.contiguous(),
            r_bits=self.r_bits,
            theta_bits=self.theta_bits,
            qjl_dim=self.qjl_dim,
            outlier_fraction=of,
            layer_seed=10007 * (self.layer_idx + 1),
            hadamard_rest=self.hadamard_rest,
            max_fwht_rest_dim=self.max_fwht_rest_dim,
            proto=proto_override,
        )
