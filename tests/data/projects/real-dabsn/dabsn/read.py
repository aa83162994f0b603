"""Canonical admitted, permanent, induction, and long-memory read."""

from __future__ import annotations

import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor
from torch._subclasses.fake_tensor import is_fake


def _parameter(value: float) -> nn.Parameter:
    return nn.Parameter(torch.full((1,), float(value)))


def _stream_is_capturing() -> bool:
    """True only while a CUDA graph is actively being captured on the current
    stream. Unlike ``_cuda_native_enabled`` (set for the whole GPU session),
    this is the narrow window in which a host sync such as ``.item()`` is
    illegal -- so it is the correct gate for forcing a static, sync-free bank
    width. Returns False on CPU or when CUDA graphs are unavailable.
    """
    # Dynamo cannot trace `is_current_stream_capturing` -- it is a torch.* op
    # returning a bool, which has no place in an FX graph -- so asking during
    # tracing turns a whole-graph compile into a hard failure. The answer during
    # tracing is False regardless: Dynamo is symbolically walking the function,
    # not recording a stream, and Inductor's own cudagraph handling does not go
    # through this probe. Short-circuiting keeps the module compilable without
    # changing what it decides at runtime.
    if torch.compiler.is_compiling():
        return False
    if not torch.cuda.is_available():
        return False
    try:
        return bool(torch.cuda.is_current_stream_capturing())
    except Exception:  # pragma: no cover - very old / exotic CUDA builds
        return False


class _AdmittedReadParameters(nn.Module):
    """Parameters shared by the canonical three-way admitted read."""

    def __init__(self, hidden_dim: int) -> None:
        super().__init__()
        self.log_temp = _parameter(0.0)
        self.p_gain = _parameter(1.0)
        self.novelty_gain = _parameter(0.5)
        self.null_bias = _parameter(-2.0)
        self.out = nn.Linear(hidden_dim * 3, hidden_dim)
        self.adm_p_gain = _parameter(1.0)
        self.adm_novelty_gain = _parameter(0.5)
        self.adm_saturation_gain = _parameter(0.5)
        self.adm_energy_gain = _parameter(0.25)
        self.adm_bias = _parameter(-2.0)

    def admission(
        self,
        novelty: Tensor,
        plasticity: Tensor,
        energy: Tensor,
        saturation: Tensor,
    ) -> Tensor:
        hidden = plasticity.shape[-1]
        return (
            self.adm_p_gain * torch.log1p(plasticity.mean(dim=-1) * hidden)
            + self.adm_novelty_gain * novelty.mean(dim=-1)
            + self.adm_saturation_gain * saturation.mean(dim=-1)
            + self.adm_energy_gain * energy.mean(dim=-1)
            + self.adm_bias
        )


class DABSNRead(nn.Module):
    """The one canonical DABSN memory read.

    Admission, permanent memory, induction, predictive expectation, and
    retention are unconditional. Geometry selects only the eligibility mask:
    causal prefix for ``seq``, whole object for ``field``, or a learned mixture
    for ``hybrid``.
    """

    def __init__(self, hidden_dim: int, read_geometry: str = "seq") -> None:
        super().__init__()
        if read_geometry not in {"seq", "field", "hybrid"}:
            raise ValueError(f"read_geometry must be seq, field, or hybrid; got {read_geometry}")
        self.hidden_dim = hidden_dim
        self.read_geometry = read_geometry
        self.last_n_max: int | None = None
        self.last_hybrid_gate: float | None = None
        self.last_seq_norm: float | None = None
        self.last_field_norm: float | None = None
        self.last_field_neighbors: float | None = None
        self.last_admit_gate_mean: float | None = None
        self.last_long_scan_norm: float | None = None
        self.last_read_contract: dict[str, object] = {}
        self.collect_traces = os.environ.get("DABSN_COLLECT_TRACES", "0") == "1"
        self.hybrid_gate_override: float | None = None

        self.pad_gain = _parameter(1.0)
        self.short_gain = _parameter(1.0)
        self.induct_gain = _parameter(0.1)
        self.cocktail_gain = _parameter(1.0)
        if read_geometry == "hybrid":
            self.hybrid_gate = _parameter(0.0)
        self.admit_window = _parameter(4.0)
        self.short_read = _AdmittedReadParameters(hidden_dim)
        self.logit_retain = _parameter(2.2)
        self.long_gain = _parameter(0.1)
        self.logit_expect_retain = _parameter(2.2)
        self.logit_retention_decay = _parameter(2.2)
        self.logit_retention_strength = _parameter(1.4)

    def forward(
        self,
        y: Tensor,
        budget: Tensor,
        expression: Tensor,
        write: Tensor,
        novelty: Tensor,
        plasticity: Tensor,
        energy: Tensor,
        saturation: Tensor,
        field_shape: tuple[int, int] | None = None,
        *,
        temporal_credit: str = "bptt",
        initial_long_state: tuple[Tensor, Tensor, Tensor] | None = None,
        long_eligibility_state=None,
        online_long_frame=None,
        return_long_state: bool = False,
    ):
        return self._unified_forward(
            y,
            budget,
            expression,
            write,
            novelty,
            plasticity,
            energy,
            saturation,
            field_shape,
            temporal_credit=temporal_credit,
            initial_long_state=initial_long_state,
            long_eligibility_state=long_eligibility_state,
            online_long_frame=online_long_frame,
            return_long_state=return_long_state,
        )

    def _unified_forward(
        self,
        y: Tensor,
        budget: Tensor,
        expression: Tensor,
        write: Tensor,
        novelty: Tensor,
        plasticity: Tensor,
        energy: Tensor,
        saturation: Tensor,
        field_shape: tuple[int, int] | None = None,
        *,
        temporal_credit: str = "bptt",
        initial_long_state: tuple[Tensor, Tensor, Tensor] | None = None,
        long_eligibility_state=None,
        online_long_frame=None,
        return_long_state: bool = False,
    ):
        del field_shape
        read_parameters = self.short_read
        batch, seq_len, hidden = expression.shape
        query = F.normalize(expression, dim=-1)
        # Keys are normalized AFTER the admitted-bank gather (see gather_bank):
        # F.normalize is row-wise and the gather selects whole rows, so
        # normalize(gather(write)) == gather(normalize(write)) exactly, but the
        # backward now only pins the [B, n_max, H] gathered keys instead of a
        # full [B, T, H] normalized-write tape.
        scale = (F.softplus(read_parameters.log_temp) + 1.0) * (hidden**0.5)
        key_bias = (
            read_parameters.p_gain * torch.log1p(plasticity.mean(dim=-1) * hidden)
            + read_parameters.novelty_gain * novelty.mean(dim=-1)
            + read_parameters.null_bias
        )
        admission = read_parameters.admission(
            novelty,
            plasticity,
            energy,
            saturation,
        )
        cocktail = F.normalize(
            torch.stack(
                [
                    energy.mean(dim=-1),
                    saturation.mean(dim=-1),
                    novelty.mean(dim=-1),
                    plasticity.mean(dim=-1),
                ],
                dim=-1,
            ),
            dim=-1,
        )

        window = F.softplus(self.admit_window)
        if self.read_geometry == "seq":
            admit_floor = torch.cummax(admission, dim=1).values - window
            admission_policy = "causal_write_prefix_max"
        else:
            admit_floor = admission.max(dim=1, keepdim=True).values - window
            admission_policy = "whole_sequence_max"
        member = admission >= admit_floor
        compiling = torch.compiler.is_compiling()
        if not compiling:
            self.last_admit_gate_mean = None

        counts = member.sum(dim=1)
        order = torch.argsort(
            member.to(query.dtype),
            dim=1,
            descending=True,
            stable=True,
        )
        # Bank-width policy. The read scores every query position against every
        # admitted bank entry, so the dense tensor-core path costs O(T * n_max).
        # Sizing the bank to the data-dependent admitted count
        # (``counts.max().item()``) keeps that sub-quadratic -- O(T * admitted)
        # -- which is the entire point of the sparse admitted read. The only
        # catch is that ``.item()`` is a host sync, which is illegal *while a
        # CUDA graph is being captured*.
        #
        # This used to be gated on ``_cuda_native_enabled``, which is set for
        # the whole GPU session: that forced the full-width (n_max == seq_len)
        # bank on EVERY CUDA step, silently turning the sparse read into a full
        # O(T^2) attention on all GPU training -- not just under capture. That
        # is the context-length blow-up. Gate strictly on *actual* stream
        # capture instead: ordinary GPU training (and the eager warmup steps of
        # a graphed run) sizes the bank to the admitted count and stays sparse;
        # only the narrow capture window takes a static width, and even there an
        # explicit measured cap (``_capture_bank_width``) keeps it sub-quadratic
        # when the harness provides one. ``_capture_safe_bank`` remains an
        # explicit manual override for callers that need the static path.
        capturing = expression.is_cuda and _stream_is_capturing()
        capture_safe_bank = bool(getattr(self, "_capture_safe_bank", False)) or capturing
        fake_tensor = not compiling and is_fake(expression)
        if compiling or fake_tensor:
            # Full-graph compilation needs a static buffer capacity. Admission
            # remains data-dependent on device through seq_valid; eager reads
            # still compact to counts.max(). Avoid unbacked item()/SymMax sizes.
            n_max = seq_len
        elif capture_safe_bank:
            cap = getattr(self, "_capture_bank_width", None)
            n_max = int(cap) if cap else seq_len
            n_max = max(1, min(n_max, seq_len))
        else:
            n_max = max(int(counts.max().item()), 1)
        if not compiling:
            self.last_n_max = n_max
        seq_idx = order[:, :n_max]
        seq_valid = torch.arange(n_max, device=expression.device).unsqueeze(0) < counts.clamp_min(
            1
        ).unsqueeze(1)

        def gather_bank(index: Tensor):
            gather_hidden = index.unsqueeze(-1).expand(-1, -1, hidden)
            bank_writes = torch.gather(write, 1, gather_hidden)
            # Normalize the gathered writes (bit-identical to gathering a full
            # normalized-key tape, but O(n_max) not O(T) in the saved graph).
            bank_keys = F.normalize(bank_writes, dim=-1)
            bank_cocktail = torch.gather(
                cocktail,
                1,
                index.unsqueeze(-1).expand(-1, -1, cocktail.shape[-1]),
            )
            bank_key_bias = torch.gather(key_bias, 1, index)
            bank_admission = torch.gather(admission, 1, index)
            return bank_keys, bank_writes, bank_cocktail, bank_key_bias, bank_admission

        seq_keys, seq_writes, seq_cocktail, seq_bias, seq_admission = gather_bank(seq_idx)
        field_idx = seq_idx
        field_valid = seq_valid
        field_keys, field_writes, field_cocktail = seq_keys, seq_writes, seq_cocktail
        field_bias, field_admission = seq_bias, seq_admission
        read_paths = 2 if self.read_geometry == "hybrid" else 1
        if not compiling:
            self.last_read_contract = {
                "read_strategy": "eager_admitted_bank",
                "exact": True,
                "approximation_reason": None,
                "bank_growth": "grows_with_T" if n_max >= seq_len else "data_dependent",
                "stored_writes_preserved": True,
                "max_admitted_bank": int(n_max),
                "estimated_read_work": int(batch) * int(seq_len) * int(n_max) * 3 * read_paths,
                "dense_masks_materialized": True,
                "context_parallel": False,
                "admission_policy": admission_policy,
                "kernel_backend": "eager_reference",
            }

        compact_cuda = expression.is_cuda and bool(
            getattr(type(self), "_cuda_native_enabled", False)
        )
        if compact_cuda:
            query_pos = None
            seq_allow = seq_eligible = None
            field_allow = field_eligible = None
        else:
            query_pos = torch.arange(seq_len, device=expression.device).view(1, seq_len, 1)
            seq_allow = (seq_idx.unsqueeze(1) <= query_pos) & seq_valid.unsqueeze(1)
            seq_eligible = seq_allow.any(dim=-1)
            field_allow = field_valid.unsqueeze(1).expand(-1, seq_len, -1)
            field_eligible = field_allow.any(dim=-1)
        trace_enabled = (
            not compiling and not fake_tensor and (self.collect_traces or not expression.is_cuda)
        )
        if self.read_geometry != "seq" and trace_enabled:
            self.last_field_neighbors = float(field_valid.detach().sum(dim=1).float().mean().cpu())
        elif self.read_geometry != "seq":
            self.last_field_neighbors = None

        next_idx = (seq_idx + 1).clamp(max=seq_len - 1)
        next_writes = torch.gather(
            write,
            1,
            next_idx.unsqueeze(-1).expand(-1, -1, hidden),
        )
        if compact_cuda:
            seq_induct_allow = seq_induct_eligible = None
            field_induct_allow = field_induct_eligible = None
        else:
            assert query_pos is not None
            seq_induct_allow = (seq_idx.unsqueeze(1) < query_pos) & seq_valid.unsqueeze(1)
            field_induct_allow = (
                (field_idx.unsqueeze(1) < (seq_len - 1)) & field_valid.unsqueeze(1)
            ).expand(-1, seq_len, -1)
            seq_induct_eligible = seq_induct_allow.any(dim=-1)
            field_induct_eligible = field_induct_allow.any(dim=-1)
        next_field_writes = None
        if self.read_geometry != "seq":
            next_field_writes = torch.gather(
                write,
                1,
                (field_idx + 1).clamp(max=seq_len - 1).unsqueeze(-1).expand(-1, -1, hidden),
            )

        if self.read_geometry == "seq":
            retrieved = self._admitted_read(
                query,
                seq_keys,
                seq_writes,
                next_writes,
                cocktail,
                seq_cocktail,
                seq_bias,
                seq_admission,
                scale,
                seq_allow,
                seq_induct_allow,
                seq_eligible,
                seq_induct_eligible,
                bank_idx=seq_idx,
                bank_valid=seq_valid,
                mode="seq",
            )
            self.last_hybrid_gate = None
            self.last_seq_norm = float(retrieved.detach().norm().cpu()) if trace_enabled else None
            self.last_field_norm = None
            self.last_field_neighbors = None
        elif self.read_geometry == "field":
            retrieved = self._admitted_read(
                query,
                field_keys,
                field_writes,
                next_field_writes,
                cocktail,
                field_cocktail,
                field_bias,
                field_admission,
                scale,
                field_allow,
                field_induct_allow,
                field_eligible,
                field_induct_eligible,
                bank_idx=field_idx,
                bank_valid=field_valid,
                mode="field",
            )
            self.last_hybrid_gate = None
            self.last_seq_norm = None
            self.last_field_norm = float(retrieved.detach().norm().cpu()) if trace_enabled else None
        else:
            seq_retrieved = self._admitted_read(
                query,
                seq_keys,
                seq_writes,
                next_writes,
                cocktail,
                seq_cocktail,
                seq_bias,
                seq_admission,
                scale,
                seq_allow,
                seq_induct_allow,
                seq_eligible,
                seq_induct_eligible,
                bank_idx=seq_idx,
                bank_valid=seq_valid,
                mode="seq",
            )
            field_retrieved = self._admitted_read(
                query,
                field_keys,
                field_writes,
                next_field_writes,
                cocktail,
                field_cocktail,
                field_bias,
                field_admission,
                scale,
                field_allow,
                field_induct_allow,
                field_eligible,
                field_induct_eligible,
                bank_idx=field_idx,
                bank_valid=field_valid,
                mode="field",
            )
            if self.hybrid_gate_override is None:
                gate = torch.sigmoid(self.hybrid_gate)
            else:
                gate = torch.as_tensor(
                    float(self.hybrid_gate_override),
                    device=query.device,
                    dtype=query.dtype,
                )
            self.last_hybrid_gate = float(gate.detach().cpu()) if trace_enabled else None
            seq_contribution = (1.0 - gate) * seq_retrieved
            field_contribution = gate * field_retrieved
            self.last_seq_norm = (
                float(seq_contribution.detach().norm().cpu()) if trace_enabled else None
            )
            self.last_field_norm = (
                float(field_contribution.detach().norm().cpu()) if trace_enabled else None
            )
            retrieved = seq_contribution + field_contribution

        if not compiling:
            self.last_read_contract.update(
                {
                    "read_strategy": (
                        "compact_flash_admitted_bank" if compact_cuda else "eager_admitted_bank"
                    ),
                    "dense_masks_materialized": not compact_cuda,
                    "kernel_backend": getattr(self, "_last_three_way_backend", "eager_reference"),
                }
            )

        output = read_parameters.out(torch.cat([y, budget, retrieved], dim=-1))
        if temporal_credit == "online":
            if (
                initial_long_state is None
                or long_eligibility_state is None
                or online_long_frame is None
            ):
                raise ValueError(
                    "online long read requires recurrent state, eligibility, and frame"
                )
            from .temporal_credit import long_read_online_autograd

            long, final_long_state = long_read_online_autograd(
                self,
                write,
                plasticity,
                novelty,
                initial_long_state,
                long_eligibility_state,
                online_long_frame,
            )
        elif temporal_credit == "bptt":
            if long_eligibility_state is not None or online_long_frame is not None:
                raise ValueError("BPTT long read does not accept online eligibility state")
            long_result = self._long_scan_from_state(
                write,
                plasticity,
                novelty,
                initial_state=initial_long_state,
                return_final_state=return_long_state,
            )
            if return_long_state:
                long, final_long_state = long_result
            else:
                long = long_result
                final_long_state = None
        else:
            raise ValueError("temporal_credit must be bptt or online")
        self.last_long_scan_norm = float(long.detach().norm().cpu()) if trace_enabled else None
        result = output + self.long_gain * long
        if return_long_state:
            return result, final_long_state
        return result

    def _admitted_read(
        self,
        query: Tensor,
        bank_keys: Tensor,
        bank_writes: Tensor,
        next_writes: Tensor | None,
        cocktail: Tensor,
        bank_cocktail: Tensor,
        bank_key_bias: Tensor,
        bank_admission: Tensor,
        scale: Tensor,
        allow: Tensor | None,
        induct_allow: Tensor | None,
        eligible: Tensor | None,
        induct_eligible: Tensor | None,
        *,
        bank_idx: Tensor,
        bank_valid: Tensor,
        mode: str,
    ) -> Tensor:
        """Dispatch an admitted read without mutating the module or its class."""
        compact_cuda = query.is_cuda and bool(getattr(type(self), "_cuda_native_enabled", False))
        if compact_cuda:
            if next_writes is None:
                raise RuntimeError("compact admitted read requires next-write memory")
            from .kernels.triton import cuda_compact_three_way_read

            return cuda_compact_three_way_read(
                self,
                query,
                bank_keys,
                bank_writes,
                next_writes,
                cocktail,
                bank_cocktail,
                bank_key_bias,
                bank_admission,
                scale,
                bank_idx,
                bank_valid,
                mode=mode,
            )
        return self._three_way_read(
            query,
            bank_keys,
            bank_writes,
            next_writes,
            cocktail,
            bank_cocktail,
            bank_key_bias,
            bank_admission,
            scale,
            allow,
            induct_allow,
            eligible,
            induct_eligible,
        )

    def _three_way_read(
        self,
        query: Tensor,
        bank_keys: Tensor,
        bank_writes: Tensor,
        next_writes: Tensor | None,
        cocktail: Tensor,
        bank_cocktail: Tensor,
        bank_key_bias: Tensor,
        bank_admission: Tensor,
        scale: Tensor,
        allow: Tensor | None,
        induct_allow: Tensor | None,
        eligible: Tensor | None,
        induct_eligible: Tensor | None,
    ) -> Tensor:
        from .kernels.admitted import (
            admitted_three_way_read,
            admitted_three_way_read_native,
        )

        if (
            next_writes is None
            or allow is None
            or induct_allow is None
            or eligible is None
            or induct_eligible is None
        ):
            raise RuntimeError(
                "the registered dense admitted read requires explicit write and mask tensors"
            )

        read_op = admitted_three_way_read
        if query.device.type == "cpu" and bool(
            getattr(type(self), "_cpu_native_read_enabled", False)
        ):
            read_op = admitted_three_way_read_native
            if not torch.compiler.is_compiling():
                self._last_three_way_backend = (
                    "cpu_native_cpp" if query.dtype == torch.float32 else "registered_reference"
                )

        return read_op(
            query,
            bank_keys,
            bank_writes,
            next_writes,
            cocktail,
            bank_cocktail,
            bank_key_bias,
            bank_admission,
            scale,
            allow,
            induct_allow,
            eligible,
            induct_eligible,
            self.short_gain,
            self.pad_gain,
            self.induct_gain,
            self.cocktail_gain,
        )

    def initial_long_scan_state(
        self,
        batch_size: int,
        hidden_dim: int | None = None,
        *,
        device=None,
        dtype=None,
    ) -> tuple[Tensor, Tensor, Tensor]:
        hidden = int(hidden_dim or self.short_read.out.out_features)
        reference = next(self.parameters())
        device = reference.device if device is None else device
        dtype = reference.dtype if dtype is None else dtype
        long = torch.zeros(batch_size, hidden, device=device, dtype=dtype)
        expected = torch.zeros_like(long)
        retention = torch.ones_like(long)
        return long, expected, retention

    def _long_scan_from_state(
        self,
        write: Tensor,
        plasticity: Tensor,
        novelty: Tensor,
        *,
        initial_state: tuple[Tensor, Tensor, Tensor] | None = None,
        return_final_state: bool = False,
    ):
        if bool(getattr(type(self), "_long_native_enabled", False)):
            from .kernels.long import fused_long_scan_from_state

            return fused_long_scan_from_state(
                self,
                write,
                plasticity,
                novelty,
                initial_state=initial_state,
                return_final_state=return_final_state,
            )
        batch, seq_len, hidden = write.shape
        retain = torch.sigmoid(self.logit_retain)
        if initial_state is None:
            long, expected, retention = self.initial_long_scan_state(
                batch,
                hidden,
                device=write.device,
                dtype=write.dtype,
            )
        else:
            long, expected, retention = initial_state
            long = long.to(device=write.device, dtype=write.dtype)
            expected = expected.to(device=write.device, dtype=write.dtype)
            retention = retention.to(device=write.device, dtype=write.dtype)
            if (
                long.shape != (batch, hidden)
                or expected.shape != (batch, hidden)
                or retention.shape != (batch, hidden)
            ):
                raise ValueError(
                    "initial long-scan state must have shape "
                    f"{(batch, hidden)}, got {tuple(long.shape)}, "
                    f"{tuple(expected.shape)}, {tuple(retention.shape)}"
                )
        expect_retain = torch.sigmoid(self.logit_expect_retain)
        retention_decay = torch.sigmoid(self.logit_retention_decay)
        retention_strength = torch.sigmoid(self.logit_retention_strength)
        outputs: list[Tensor] = []
        for step in range(seq_len):
            prediction_error = torch.tanh((write[:, step, :] - expected).abs())
            plastic_salience = plasticity[:, step, :] * prediction_error
            expected = expect_retain * expected + (1.0 - expect_retain) * write[:, step, :]
            retention = retention_decay * retention + (1.0 - retention_decay) * (
                1.0 - prediction_error
            )
            effective_retain = retain + (1.0 - retain) * retention_strength * retention
            long = effective_retain * long + (1.0 - effective_retain) * (
                plastic_salience * write[:, step, :]
            )
            outputs.append(long)
        output = torch.stack(outputs, dim=1)
        if return_final_state:
            return output, (long, expected, retention)
        return output

    def _long_scan(
        self,
        write: Tensor,
        plasticity: Tensor,
        novelty: Tensor,
    ) -> Tensor:
        return self._long_scan_from_state(write, plasticity, novelty)

    def forward_query_bank(
        self,
        y: Tensor,
        budget: Tensor,
        expression: Tensor,
        write: Tensor,
        novelty: Tensor,
        plasticity: Tensor,
        energy: Tensor,
        saturation: Tensor,
        *,
        bank_y: Tensor | None,
        bank_b: Tensor | None,
        bank_ay: Tensor | None,
        bank_write: Tensor,
        bank_novelty: Tensor,
        bank_p: Tensor,
        bank_energy: Tensor,
        bank_saturation: Tensor,
        query_start: int | Tensor,
        bank_valid_mask: Tensor | None = None,
        bank_positions: Tensor | None = None,
        initial_long_state: tuple[Tensor, Tensor, Tensor] | None = None,
        return_long_state: bool = False,
        temporal_credit: str = "bptt",
        long_eligibility_state=None,
        online_long_frame=None,
    ):
        del bank_y, bank_b, bank_ay
        if self.read_geometry != "seq":
            raise RuntimeError("query-bank read is exact only for seq geometry")
        read_parameters = self.short_read
        batch, query_len, hidden = expression.shape
        bank_len = bank_write.shape[1]
        if bank_len <= 0:
            raise RuntimeError("query-bank read requires a non-empty bank")
        if torch.is_tensor(query_start):
            query_starts = query_start.to(device=expression.device, dtype=torch.int64)
            if tuple(query_starts.shape) != (batch,):
                raise ValueError("query_start tensor must have shape [B]")
        else:
            query_starts = torch.full(
                (batch,), int(query_start), device=expression.device, dtype=torch.int64
            )
        if bank_valid_mask is None:
            bank_valid_mask = torch.ones(
                batch, bank_len, dtype=torch.bool, device=expression.device
            )
        elif bank_valid_mask.dtype != torch.bool or tuple(bank_valid_mask.shape) != (
            batch,
            bank_len,
        ):
            raise ValueError("bank_valid_mask must be bool [B,N]")
        if bank_positions is None:
            bank_positions = torch.arange(
                bank_len, dtype=torch.int64, device=expression.device
            ).unsqueeze(0).expand(batch, -1)
        elif bank_positions.dtype != torch.int64 or tuple(bank_positions.shape) != (
            batch,
            bank_len,
        ):
            raise ValueError("bank_positions must be int64 [B,N]")

        query = F.normalize(expression, dim=-1)
        # Keys normalized after the gather (Phase 2c) -- see the short read: the
        # row-wise normalize commutes with the row gather bit-for-bit.
        scale = (F.softplus(read_parameters.log_temp) + 1.0) * (hidden**0.5)
        key_bias = (
            read_parameters.p_gain * torch.log1p(bank_p.mean(dim=-1) * hidden)
            + read_parameters.novelty_gain * bank_novelty.mean(dim=-1)
            + read_parameters.null_bias
        )
        admission = read_parameters.admission(
            bank_novelty,
            bank_p,
            bank_energy,
            bank_saturation,
        )
        query_cocktail = F.normalize(
            torch.stack(
                [
                    energy.mean(dim=-1),
                    saturation.mean(dim=-1),
                    novelty.mean(dim=-1),
                    plasticity.mean(dim=-1),
                ],
                dim=-1,
            ),
            dim=-1,
        )
        bank_cocktail = F.normalize(
            torch.stack(
                [
                    bank_energy.mean(dim=-1),
                    bank_saturation.mean(dim=-1),
                    bank_novelty.mean(dim=-1),
                    bank_p.mean(dim=-1),
                ],
                dim=-1,
            ),
            dim=-1,
        )

        window = F.softplus(self.admit_window)
        masked_admission = admission.masked_fill(~bank_valid_mask, -torch.inf)
        admit_floor = torch.cummax(masked_admission, dim=1).values - window
        member = (admission >= admit_floor) & bank_valid_mask
        counts = member.sum(dim=1)
        fake_tensor = not torch.compiler.is_compiling() and is_fake(expression)
        n_max = bank_len if torch.compiler.is_compiling() or fake_tensor else max(int(counts.max().item()), 1)
        order = torch.argsort(
            member.to(query.dtype),
            dim=1,
            descending=True,
            stable=True,
        )
        bank_idx = order[:, :n_max]
        bank_valid = torch.arange(n_max, device=expression.device).unsqueeze(0) < counts.clamp_min(
            1
        ).unsqueeze(1)

        gather_hidden = bank_idx.unsqueeze(-1).expand(-1, -1, hidden)
        bank_writes = torch.gather(bank_write, 1, gather_hidden)
        bank_keys = F.normalize(bank_writes, dim=-1)
        selected_cocktail = torch.gather(
            bank_cocktail,
            1,
            bank_idx.unsqueeze(-1).expand(-1, -1, bank_cocktail.shape[-1]),
        )
        selected_bias = torch.gather(key_bias, 1, bank_idx)
        selected_admission = torch.gather(admission, 1, bank_idx)
        selected_positions = torch.gather(bank_positions, 1, bank_idx)
        next_idx = (bank_idx + 1).clamp(max=bank_len - 1)
        next_writes = torch.gather(
            bank_write,
            1,
            next_idx.unsqueeze(-1).expand(-1, -1, hidden),
        )

        compact_cuda = expression.is_cuda and bool(
            getattr(type(self), "_cuda_native_enabled", False)
        )
        if compact_cuda:
            allow = induct_allow = eligible = induct_eligible = None
        else:
            query_pos = query_starts.view(batch, 1, 1) + torch.arange(
                query_len, device=expression.device
            ).view(1, query_len, 1)
            allow = (selected_positions.unsqueeze(1) <= query_pos) & bank_valid.unsqueeze(1)
            induct_allow = (selected_positions.unsqueeze(1) < query_pos) & bank_valid.unsqueeze(1)
            eligible = allow.any(dim=-1)
            induct_eligible = induct_allow.any(dim=-1)
        retrieved = self._admitted_read(
            query,
            bank_keys,
            bank_writes,
            next_writes,
            query_cocktail,
            selected_cocktail,
            selected_bias,
            selected_admission,
            scale,
            allow,
            induct_allow,
            eligible,
            induct_eligible,
            bank_idx=selected_positions - query_starts.unsqueeze(1),
            bank_valid=bank_valid,
            mode="seq",
        )
        kernel_backend = getattr(self, "_last_three_way_backend", "eager_reference")

        compiling = torch.compiler.is_compiling()
        trace_enabled = (
            not compiling and not fake_tensor and (self.collect_traces or not expression.is_cuda)
        )
        if not compiling:
            self.last_n_max = n_max
            self.last_hybrid_gate = None
            self.last_seq_norm = float(retrieved.detach().norm().cpu()) if trace_enabled else None
            self.last_field_norm = None
            self.last_field_neighbors = None
            self.last_read_contract = {
                "read_strategy": (
                    "query_only_compact_flash_admitted_bank"
                    if compact_cuda
                    else "query_only_eager_admitted_bank"
                ),
                "exact": True,
                "approximation_reason": None,
                "bank_growth": "grows_with_T" if n_max >= bank_len else "data_dependent",
                "stored_writes_preserved": True,
                "max_admitted_bank": int(n_max),
                "estimated_read_work": int(batch) * int(query_len) * int(n_max) * 3,
                "dense_masks_materialized": not compact_cuda,
                "context_parallel": True,
                "query_only": True,
                "query_start": (
                    int(query_starts[0].item())
                    if bool(torch.all(query_starts == query_starts[0]).item())
                    else tuple(int(value) for value in query_starts.tolist())
                ),
                "bank_entries": int(bank_len),
                "admission_policy": "causal_write_prefix_max",
                "kernel_backend": kernel_backend,
            }

        short_output = read_parameters.out(torch.cat([y, budget, retrieved], dim=-1))
        if temporal_credit == "online":
            if (
                initial_long_state is None
                or long_eligibility_state is None
                or online_long_frame is None
            ):
                raise ValueError(
                    "online query-bank read requires recurrent state, eligibility, and frame"
                )
            from .temporal_credit import long_read_online_autograd

            long, final_long_state = long_read_online_autograd(
                self,
                write,
                plasticity,
                novelty,
                initial_long_state,
                long_eligibility_state,
                online_long_frame,
            )
        elif temporal_credit == "bptt":
            if long_eligibility_state is not None or online_long_frame is not None:
                raise ValueError("BPTT query-bank read does not accept online eligibility state")
            long_result = self._long_scan_from_state(
                write,
                plasticity,
                novelty,
                initial_state=initial_long_state,
                return_final_state=return_long_state,
            )
            if return_long_state:
                long, final_long_state = long_result
            else:
                long = long_result
                final_long_state = None
        else:
            raise ValueError("temporal_credit must be bptt or online")
        self.last_long_scan_norm = float(long.detach().norm().cpu()) if trace_enabled else None
        output = short_output + self.long_gain * long
        if return_long_state:
            return output, final_long_state
        return output

    def forward_query_prepared(
        self,
        y: Tensor,
        budget: Tensor,
        expression: Tensor,
        write: Tensor,
        novelty: Tensor,
        plasticity: Tensor,
        energy: Tensor,
        saturation: Tensor,
        *,
        bank,
        query_start: int | Tensor,
        initial_long_state: tuple[Tensor, Tensor, Tensor] | None = None,
        return_long_state: bool = False,
        temporal_credit: str = "bptt",
        long_eligibility_state=None,
        online_long_frame=None,
    ):
        """Query an already admitted paged bank without rebuilding its metadata."""
        if self.read_geometry != "seq":
            raise RuntimeError("prepared query-bank read is exact only for seq geometry")
        from .prepared_memory import prepared_three_way_read, read_parameter_identity

        if bank.identity.get("read_parameters") != read_parameter_identity(self):
            raise ValueError("prepared bank read parameters do not match the current read")
        batch, query_len, hidden = expression.shape
        if torch.is_tensor(query_start):
            query_starts = query_start.to(device=expression.device, dtype=torch.int64)
            if tuple(query_starts.shape) != (batch,):
                raise ValueError("query_start tensor must have shape [B]")
        else:
            query_starts = torch.full(
                (batch,), int(query_start), device=expression.device, dtype=torch.int64
            )
        if int(bank.entries.shape[0]) != batch:
            raise ValueError("prepared bank batch does not match query batch")

        query = F.normalize(expression, dim=-1)
        query_cocktail = F.normalize(
            torch.stack(
                [
                    energy.mean(dim=-1),
                    saturation.mean(dim=-1),
                    novelty.mean(dim=-1),
                    plasticity.mean(dim=-1),
                ],
                dim=-1,
            ),
            dim=-1,
        )
        parameters = self.short_read
        scale = (F.softplus(parameters.log_temp) + 1.0) * (hidden**0.5)
        retrieved = prepared_three_way_read(
            query,
            query_cocktail,
            bank,
            query_starts,
            scale=scale,
            short_gain=self.short_gain,
            pad_gain=self.pad_gain,
            induct_gain=self.induct_gain,
            cocktail_gain=self.cocktail_gain,
        )

        compiling = torch.compiler.is_compiling()
        trace_enabled = not compiling and (self.collect_traces or not expression.is_cuda)
        if not compiling:
            n_max = int(bank.entries.max().item())
            self.last_n_max = n_max
            self.last_hybrid_gate = None
            self.last_seq_norm = float(retrieved.detach().norm().cpu()) if trace_enabled else None
            self.last_field_norm = None
            self.last_field_neighbors = None
            self.last_read_contract = {
                "read_strategy": "prepared_paged_admitted_bank",
                "exact": True,
                "approximation_reason": None,
                "bank_growth": "data_dependent_committed_events",
                "stored_writes_preserved": True,
                "max_admitted_bank": n_max,
                "estimated_read_work": int(batch) * int(query_len) * n_max * 3,
                "dense_masks_materialized": False,
                "context_parallel": True,
                "query_only": True,
                "query_start": (
                    int(query_starts[0].item())
                    if bool(torch.all(query_starts == query_starts[0]).item())
                    else tuple(int(value) for value in query_starts.tolist())
                ),
                "bank_entries": tuple(int(value) for value in bank.entries.tolist()),
                "admission_policy": "prepared_causal_write_prefix_max",
                "kernel_backend": (
                    "cuda_inductor_pagewise_bmm_score_once"
                    if expression.is_cuda
                    else "torch_pagewise_score_once"
                ),
                "page_size": int(bank.page_size),
                "page_count": len(bank.pages),
            }

        short_output = parameters.out(torch.cat([y, budget, retrieved], dim=-1))
        if temporal_credit == "online":
            if (
                initial_long_state is None
                or long_eligibility_state is None
                or online_long_frame is None
            ):
                raise ValueError(
                    "online prepared read requires recurrent state, eligibility, and frame"
                )
            from .temporal_credit import long_read_online_autograd

            long, final_long_state = long_read_online_autograd(
                self,
                write,
                plasticity,
                novelty,
                initial_long_state,
                long_eligibility_state,
                online_long_frame,
            )
        elif temporal_credit == "bptt":
            if long_eligibility_state is not None or online_long_frame is not None:
                raise ValueError("BPTT prepared read does not accept online eligibility state")
            long_result = self._long_scan_from_state(
                write,
                plasticity,
                novelty,
                initial_state=initial_long_state,
                return_final_state=return_long_state,
            )
            if return_long_state:
                long, final_long_state = long_result
            else:
                long = long_result
                final_long_state = None
        else:
            raise ValueError("temporal_credit must be bptt or online")
        self.last_long_scan_norm = float(long.detach().norm().cpu()) if trace_enabled else None
        output = short_output + self.long_gain * long
        if return_long_state:
            return output, final_long_state
        return output
