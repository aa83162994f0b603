# Copyright (c) 2026 Cerin Amroth LLC. MIT license (see LICENSE).
"""Batched FP8 paged KV over RowPool (hybrid Stage 2, Phase 7).

The serving-side integration of the E4M3 KV format: quantize on WRITE into
:class:`row_pool.RowPool` block rows, and on READ hand the fused Triton
kernel ``(pool bytes, block table, seq lens)`` — never a dequantized
tensor. This is the piece that makes Phase 7's format usable by Phase 8/9's
scheduler, and it is deliberately NOT a transformers cache object: the
protocol's ``update() -> (k, v)`` contract is a promise to materialize
tensors for stock attention, which is exactly what invariant 2 forbids on
this path. The oracle that keeps that contract for quality measurement is
:mod:`.fp8_kv_cache`; this class serves kernels.

Tier vocabulary (invariant 8): two RowPools — keys and values row sizes
differ once key scales are grouped — each with one partition per layer.
Blocks are pool rows; a block belongs to one sequence; the kernel's block
table is partition-relative row indices, which v1 can equate with append
order because nothing demotes (``head == 0`` always, asserted). Demotion /
park of FP8 blocks is Phase 10's work and changes only who owns the ring,
not this format.

Free when unused (invariant 9): construct nothing, pay nothing — the pools
allocate at construction and only when a caller opts into FP8 KV.

Decode appends are per (layer, sequence) and cost a handful of narrow+copy
dispatches each; at large batch that python count is the known cost of v1
and lands on Phase 9's batched-update path (single quantize over the batch
is already provided here via :meth:`append_batch`; the per-sequence row
writes are the part the scheduler will fuse).
"""
from __future__ import annotations

import os

import torch

BLOCK_TOKENS = 16

#: :meth:`Fp8PagedKV.append_prompt` stacks at most this many bytes of bf16 input per side per group of layers
BULK_GROUP_BYTES = 16 << 20



#: grouped-nf4-gemm's fused KV appends (``fp8_kv_append_t1`` / ``_bt1``) cast to e4m3 with Triton's
#: ``tl.float8e4nv``, which Triton compiles only on sm_89+. On sm_80-86 it refuses at compile time ("type fp8e4nv
#: not supported in this architecture"): measured on an RTX A2000 (sm_86), triton 3.4.0, at the first graphed
#: decode step of ``serve_paged``. The eager append casts with torch and runs on any CUDA card.
FUSED_APPEND_MIN_CAPABILITY = (8, 9)


def fused_append_unsupported(capability, vendor: str | None = None) -> str | None:
    """Why the fused KV append cannot run on a device of ``capability`` ((major, minor)), or None if it can or the
    capability is unknown. Bucketed decode graphs need the fused append, so this is also why they cannot.

    ``vendor`` (``"nvidia"``, ``"amd"``, or None for the running torch's) is asked FIRST: an AMD capability is a gfx
    number (MI300X is (9, 4)), which would pass the sm_89 rule below on hardware whose fp8 is FNUZ or absent."""
    from .._rocm import vendor_of

    if vendor_of(vendor) == "amd":
        return ("AMD GPU: the fused FP8 KV append (OCP e4m3 through Triton's tl.float8e4nv) is not yet supported on "
                "AMD; no AMD card has run the suites, and an AMD compute capability is a gfx number, not an sm number")
    if capability is None or tuple(capability) >= FUSED_APPEND_MIN_CAPABILITY:
        return None
    return (f"the fused FP8 KV append casts to e4m3 in Triton, which needs sm_{FUSED_APPEND_MIN_CAPABILITY[0]}"
            f"{FUSED_APPEND_MIN_CAPABILITY[1]}+; this device is sm_{capability[0]}{capability[1]}")


def cuda_capability(device_str):
    """``(major, minor)`` of a CUDA device string, or None off CUDA or without a driver."""
    if not str(device_str).startswith("cuda") or not torch.cuda.is_available():
        return None
    return tuple(torch.cuda.get_device_capability(torch.device(device_str)))


def _resolve_fused_append(env, device_str, kernel_present, capability=None) -> bool:
    """B2-certified default (RESULTS-f1-stageB-b2: PASS, gain
    2.08 ms/step, bitwise 13/13, token-identity exact), resolved at
    CONSTRUCTION. Three gates, each with a loud-refuse twin when the
    caller EXPLICITLY set E4B_FUSED_KV_APPEND=1:

    - env "0" rolls back to the eager ~25-launch append.
    - the fused path is a CUDA triton kernel: a non-cuda KV degrades.
      Presence of the kernel is not usability -- once gnf4 >= 0.15.0
      ships fp8_kv_append_t1 the import SUCCEEDS on a CPU host and the
      first append would die inside triton's driver ("0 active
      drivers"; caught by e4b#251 CI the hour 0.15.0 hit PyPI).
    - a pre-gnf4#253 install has no kernel: degrade (the lazy import
      used to crash graph decode on every such install -- Bugbot,
      e4b#238). ``kernel_present`` is a callable so the import cost is
      paid only when the answer matters.
    - a device below sm_89 cannot compile the kernel's e4m3 cast
      (:func:`fused_append_unsupported`): degrade. Before this gate the
      first graphed decode step died in Triton's compiler on every
      Ampere card.
    """
    want = (env or "1") == "1"
    if not want:
        return False
    if not device_str.startswith("cuda"):
        if env == "1":
            raise RuntimeError(
                "E4B_FUSED_KV_APPEND=1 but this Fp8PagedKV is on "
                f"device {device_str!r} -- the fused append is a CUDA "
                "triton kernel")
        return False
    why = fused_append_unsupported(capability)
    if why:
        if env == "1":
            raise RuntimeError(f"E4B_FUSED_KV_APPEND=1 but {why}")
        return False
    if not kernel_present():
        if env == "1":
            raise RuntimeError(
                "E4B_FUSED_KV_APPEND=1 but the installed "
                "grouped-nf4-gemm has no fp8_kv_append_t1 "
                "(needs the gnf4#253 kernel)")
        return False
    return True


_KERNEL_KW_CACHE: dict = {}

#: ``E4B_ATTN_SPLIT_FIXED``'s pinned call (the fp8 split path): every argument ``fp8_paged_decode_attention`` would
#: otherwise resolve per call, at the value it resolves to on that path, so the call differs across row counts only in
#: B. ``n_split`` (the one choice its ``decode_split_plan`` makes from B) is the knob's S, added at the call. The kernel's
#: split boundaries are a row's own (tiles_per = ceil(ceil(len / KTILE) / n_split), t_lo = split * tiles_per * KTILE)
#: and its fused combine reduces splits 0..n_split-1 in order, so with these fixed a row's arithmetic does not depend
#: on the batch it decodes in. ``sm_scale`` (from head_dim) is already per-call constant and is left to the wrapper.
SPLIT_FIXED_PINS = {"compute": "fp8", "fuse_combine": True, "num_warps": 4, "ktile": 64, "num_stages": 3,
                    "pack_heads": False}


def _step_select_env(value) -> bool:
    """``E4B_KV_STEP_SELECT`` (SC1b's lever; ON by default since lane P111): with a decode-graph bucket bound, select the active set's
    block-table and seq-lens rows for EVERY layer once per step (outside the graph, in :meth:`graph_bucket_load`) and
    publish the step's +1 to every layer's lengths once after it (:meth:`graph_bucket_publish`), instead of two
    ``index_select`` per layer in :meth:`kernel_args` and one ``index_add_`` per layer in :meth:`append_graph_bt1`.
    The kernels see the same values: the append writes at the pre-step length, and attention reads pre-step + 1.
    ``1`` turns it on and ``0`` (or empty) keeps the per-layer form; anything else is refused. The CALL SITE defaults an
    UNSET variable to ``1`` (on since lane P111, ``bench/p111/RESULTS-p111.md``: identical tokens on the default server,
    Qwen3-30B-A3B NF4 on an RTX 5090, 3.6 % faster with 16 concurrent requests, 1.2 % with one), so this parser keeps
    the bytes P111 staged and tested."""
    v = (value or "0").strip() or "0"
    if v not in ("0", "1"):
        raise ValueError(f"E4B_KV_STEP_SELECT={value!r}: expected '0' or '1'")
    return v == "1"


def _parity_options_in_use(kw) -> list:
    """Which of the parity options an attention call actually carries: a
    window is in use when it is a positive width; sinks are in use when a
    tensor is present at all. (A tensor must never meet ``==`` or ``in``
    here -- ``tensor == 0`` is a tensor, and its truth value raises.)"""
    used = []
    if kw.get("window"):
        used.append("window")
    if kw.get("sinks") is not None:
        used.append("sinks")
    return used


def _kernel_takes(fn, *names) -> bool:
    """Whether the installed kernel wrapper accepts every keyword in
    ``names`` (cached per function object)."""
    key = (id(fn), names)
    hit = _KERNEL_KW_CACHE.get(key)
    if hit is None:
        import inspect
        params = inspect.signature(fn).parameters
        hit = all(n in params for n in names)
        _KERNEL_KW_CACHE[key] = hit
    return hit

def append_prompt_peak_bytes(layer_geometry, T: int) -> int:
    """An upper bound on the device memory :meth:`Fp8PagedKV.append_prompt` (the bulk KV flush) allocates for a ``T``-token
    prompt, beyond its inputs, over layers of ``(kv_heads, head_dim, k_groups)``. Per geometry group, the largest bounded
    group's stacks and quantize temporaries (7 x its bf16 input per side), plus every layer's quantized bytes, which are
    held until the writes. A pure function so a planner can price the flush before building a pool."""
    T = int(T)
    layer_geometry = list(layer_geometry)
    if T <= 0 or not layer_geometry:
        return 0
    groups: dict = {}
    for geo in layer_geometry:
        groups[tuple(int(x) for x in geo)] = groups.get(tuple(int(x) for x in geo), 0) + 1
    peak_group, held = 0, 0
    for (H, D, kg), n in groups.items():
        per = max(1, BULK_GROUP_BYTES // max(1, T * H * D * 2))
        g = min(per, n)
        peak_group = max(peak_group, 7 * g * T * H * D * 2)
        held += n * T * (2 * H * D + H * kg * 4 + H * 4)      # K and V payload + their scales
    return peak_group + held


def _auto_k_groups(head_dim: int, width: int = 32) -> int:
    """Key scale groups that keep ``width``-wide scales at this head_dim,
    capped by what the INSTALLED kernel unrolls. Capability-conditional
    per the cross-package rule: ask ``fp8_compute_unsupported`` (the
    kernel's single source of truth) whether it accepts the count, and
    fall back to 4 groups -- the pre-0.32 default -- when it does not
    or when the kernel is absent."""
    # 32-wide scales at head_dim >= 128: 4 groups at 128, 8 at 256, 16 at
    # 512. Below 128 the count FLOORS at 4: a 64-dim head keeps 16-wide
    # groups and therefore the f32 attention compute path on sm_120
    # (below the fp8 dot's 32-wide minimum). The alternative -- 2 groups
    # at 64 so GraniteMoe and gpt-oss leave the f32 path -- was measured
    # and REFUSED (P30 A/B, one box, paired twice): it buys nothing at
    # B=1 or B=16 on either family (the PyPI cut on the f32 path times
    # identically to the fp8 path) and costs +0.0136 nats on Granite (4x
    # its floor) and +0.108 on gpt-oss (6x). Wider than 32 is never
    # chosen; narrower than 16 never was.
    want = max(1, head_dim // width)
    # the fp8 compute kernels unroll powers of two only (1, 2, 4, 8, 16):
    # head_dim 96 would otherwise ask for 3 groups and be refused at decode
    # (Bugbot, #367); round down, then keep the count dividing head_dim
    want = 1 << (want.bit_length() - 1)
    while head_dim % want:
        want //= 2
    if want <= 4:
        want = 4
        while head_dim % want:
            want //= 2
        return want
    try:
        from fp8_paged_attn import fp8_compute_unsupported
        # the group-count check precedes the dtype/device checks, so a CPU
        # dummy still gets the "unrolls k_groups" reason from an old kernel
        why = fp8_compute_unsupported(torch.zeros(1, dtype=torch.bfloat16),
                                      head_dim, want, 1)
    except ImportError:
        return 4
    except Exception:            # noqa: BLE001 -- device checks on a dummy
        return want
    if why and "unrolls k_groups" in why:
        return 4
    return want


_SM_COUNT: dict = {}


def _sm_count(device) -> int:
    key = str(device)
    if key not in _SM_COUNT:
        _SM_COUNT[key] = torch.cuda.get_device_properties(device).multi_processor_count
    return _SM_COUNT[key]


class Fp8PagedKV:
    """FP8 paged KV for ``L`` layers, ``B`` sequences, one model.

    ``k_groups`` is the sub-row scale granularity on KEYS (the measured
    quality-passing config is ``head_dim // 32`` groups, i.e. 32-wide);
    values keep the full-row scale — the asymmetry is measured, not
    assumed (keys carry ~3x the dynamic range; see RESULTS-g7-quality).
    """

    def __init__(self, n_layers: int, n_kv_heads: int, head_dim: int, *,
                 batch: int, max_tokens_per_seq: int,
                 k_groups: int | None = None,
                 batched_append: bool = True, device: str = "cuda",
                 scratch_slots: int = 0, alias_slots: int = 0,
                 pool_rows: int | None = None):
        """``scratch_slots`` (#511) adds that many slots AFTER the ``batch``
        real ones (ids ``batch .. batch + scratch_slots - 1``), each backed
        by ONE block rather than a full sequence's worth. They exist for the
        bucketed decode graphs (``PagedModelRunner.enable_decode_graphs``):
        a bucket is captured on scratch slots only, so warm-up forwards never
        advance a live sequence, and at replay they are the padding rows. A
        scheduler must never be given them (``kv_slots = batch``).

        ``alias_slots`` (lane SD2, ``bench/sd2/PREREG-sd2.md`` B1) adds that
        many slots after the scratch ones, backed by NO block of their own.
        A speculative verify of ``k + 1`` rows runs as a decode bucket whose
        rows 1..k are alias slots: :meth:`alias_bind` copies the speculating
        slot's block-table row into each and sets alias ``i``'s length to
        the slot's plus ``i``, so the batch append writes row ``i`` into the
        slot's own blocks at its position plus ``i``. They are never padding
        rows (a padding row writes its slot's position 0, which through an
        aliased table is the speculating slot's first token), so they sit
        outside ``scratch``, and that is asserted.

        ``pool_rows`` (lever G3, ``bench/kv-pool-g/DESIGN.md``) sets each layer's row count below the claim-all size
        ``batch x blocks_per_seq + scratch_slots``, so the slots share fewer rows than they could ever reach. Only a
        caller that claims blocks as it writes and admits by reserved blocks may build one (the paged runner's
        ``incremental_claims`` with the scheduler's ``kv_blocks = pool_rows - scratch_slots``): a slot that claimed
        every block it could reach would run the pool dry. It must hold the scratch slots plus one full sequence, and
        is never larger than the claim-all size. ``None`` (the default) is the claim-all size."""
        from fp8_kv import kv_block_bytes
        from row_pool import RowPool

        # per-layer geometry: an int broadcasts; a sequence gives each
        # layer its own (H, D). Gemma-4 runs sliding layers at head_dim
        # 256 / 8 kv heads and full layers at 512 / 2; one cache serves
        # both. Every pool row is sized for the LARGEST layer (the row
        # stride the kernels take separately from a launch's H/D); the
        # smaller layers leave a tail unused.
        Hs = [int(x) for x in (n_kv_heads if hasattr(n_kv_heads, "__len__")
                               else [n_kv_heads] * n_layers)]
        Ds = [int(x) for x in (head_dim if hasattr(head_dim, "__len__")
                               else [head_dim] * n_layers)]
        if len(Hs) != n_layers or len(Ds) != n_layers:
            raise ValueError(f"per-layer geometry needs {n_layers} entries, "
                             f"got {len(Hs)} heads / {len(Ds)} dims")
        # key scale groups PER LAYER: an int broadcasts (the pre-0.32
        # behaviour); None keeps 32-wide scales at every head_dim --
        # 4 groups at 128, 8 at 256, 16 at 512 -- when the installed
        # kernel unrolls that many, and 4 otherwise. Gemma-4's five
        # 512-dim layers measured 0.046 nats of fp8 cost with 128-wide
        # groups and 0.017 with 32-wide (P27, e4b#359); Qwen3 at 128 is
        # unchanged either way.
        if k_groups is None:
            kgs = [_auto_k_groups(d) for d in Ds]
        else:
            kgs = [int(k_groups)] * n_layers
        for lyr, (d, kg) in enumerate(zip(Ds, kgs)):
            if d % max(kg, 1):
                raise ValueError(f"k_groups {kg} must divide "
                                 f"head_dim {d} (layer {lyr})")
        self.L = n_layers
        self.Hs, self.Ds = Hs, Ds
        self.H = max(Hs)          # the largest geometry (row sizing)
        self.D = max(Ds)
        self.B = batch
        self.n_scratch = int(scratch_slots)
        if self.n_scratch < 0:
            raise ValueError(f"scratch_slots must be >= 0, got {scratch_slots}")
        self.scratch = list(range(batch, batch + self.n_scratch))
        self.n_alias = int(alias_slots)
        if self.n_alias < 0:
            raise ValueError(f"alias_slots must be >= 0, got {alias_slots}")
        self.alias = list(range(batch + self.n_scratch, batch + self.n_scratch + self.n_alias))
        if set(self.alias) & set(self.scratch):
            raise AssertionError("alias slots must sit outside the scratch (padding) slots")
        slots_total = batch + self.n_scratch + self.n_alias
        self._alias_set = frozenset(self.alias)
        self.bt = BLOCK_TOKENS
        self.split_cap = None      # E4B_ATTN_SPLIT_CAP, set by the server's build (lane P143): None = the library's plan
        self.split_plans = {}      # B -> {calls, plan, n_split}: what the cap met (lane P143's engagement record)
        self.split_fixed = None    # E4B_ATTN_SPLIT_FIXED, set by the server's build: None = off; S = n_split S at every B
        self.split_fixed_plans = {}  # B -> {calls, plan, n_split, pins}: what the fixed split met (its engagement record)
        self.kgs = kgs
        # the uniform value when there is one (what callers used to read);
        # None under mixed geometry -- read ``kgs[layer]``
        self.k_groups = kgs[0] if len(set(kgs)) == 1 else None
        # decode call-site switch (PREREG-g9-kvappend): callers that see
        # this flag use append_batch for the whole batch at each layer
        # instead of one append per sequence
        self.batched_append = batched_append
        self.graph_t1 = False   # B1d graph mode; graph_mode_init flips it
        self._batch_idx_cache = {}
        self.blocks_per_seq = -(-max_tokens_per_seq // self.bt)
        # natural row per layer, pool stride = the largest
        self.k_rows = [kv_block_bytes(self.bt, h, d) + self.bt * h * 4 * (kg - 1)
                       for h, d, kg in zip(Hs, Ds, kgs)]
        self.v_rows = [kv_block_bytes(self.bt, h, d) for h, d in zip(Hs, Ds)]
        self.k_row = max(self.k_rows)
        self.v_row = max(self.v_rows)
        full = batch * self.blocks_per_seq + self.n_scratch
        if pool_rows is None:
            rows = full
        else:
            rows = int(pool_rows)
            if not self.n_scratch + self.blocks_per_seq <= rows <= full:
                raise ValueError(f"pool_rows {rows} must hold the {self.n_scratch} scratch rows plus one full sequence "
                                 f"({self.blocks_per_seq} blocks) and be at most the claim-all size {full}")
        self.claim_all_rows = full
        self.shared_pool = rows < full     # a pool smaller than its slots can reach: incremental claims only (G3)
        self._n_rows = rows
        self.kp = RowPool(n_layers, rows, 0, self.k_row, device=device)
        self.vp = RowPool(n_layers, rows, 0, self.v_row, device=device)
        self.device = self.kp.device
        # payload bytes before the scale tail of a row, per side, per layer
        self._k_pays = [self.bt * h * d for h, d in zip(Hs, Ds)]
        self._v_pays = list(self._k_pays)
        self._k_pay = self._k_pays[0]
        # resolution semantics + history: _resolve_fused_append
        def _kernel_present():
            try:
                from fp8_kv import fp8_kv_append_t1  # noqa: F401
                return True
            except ImportError:
                return False

        self._fused_append = _resolve_fused_append(
            os.environ.get("E4B_FUSED_KV_APPEND"), str(device),
            _kernel_present, cuda_capability(device))
        # append_many's row writes: batched scatter by default, the
        # per-sequence loop under E4B_BATCHED_KV_WRITE=0. See
        # _flat_row_index for why the batched form exists and what it
        # measured; the loop stays reachable because it is the reference
        # the batched path is checked against.
        self._batched_write = os.environ.get(
            "E4B_BATCHED_KV_WRITE", "1") == "1"
        # (slots, pidx, sidx, fills) per (pool, layer) — see _flat_row_index
        self._kv_flat_cache: dict[tuple[int, int], list] = {}
        self._v_pay = self._v_pays[0]
        # block tables live on-device and are written IN PLACE when a block
        # opens (one scalar copy per 16 tokens) — rebuilding [B, blocks]
        # tables per decode step would be an H2D per layer per step
        # ONE [L, slots, blocks] tensor, exposed per layer as views: every in-place write through block_table[layer]
        # lands in it, so a decode step can select the active set's rows for all layers in one launch
        # (E4B_KV_STEP_SELECT)
        self._bt_all = torch.zeros(n_layers, slots_total, self.blocks_per_seq, dtype=torch.int32, device=self.device)
        self.block_table = [self._bt_all[layer] for layer in range(n_layers)]
        self.seq_lens = torch.zeros(n_layers, slots_total, dtype=torch.int32,
                                    device=self.device)
        self._seen = [[0] * slots_total for _ in range(n_layers)]
        # Block rows a (layer, slot) currently owns, so a finished
        # sequence can hand them back. A serving loop recycles slots
        # continuously; without this the pool is a one-shot arena and the
        # engine would die at ``blocks`` sequences regardless of how many
        # ever ran at once (Phase 9).
        self._rows: dict[tuple[int, int], list[int]] = {}
        # device selector per active-set tuple (see kernel_args) — bounded
        # by the distinct decode subsets a run ever sees (arrival/finish
        # order over <= batch slots), each an 8-byte-per-slot tensor
        self._slot_sel: dict[tuple, torch.Tensor] = {}
        self._free: list[list[int]] = [
            list(range(rows)) for _ in range(n_layers)]
        # Claim the whole arena up front, once. RowPool's append/demote
        # ring exists for the WEIGHT tier, where rows stream in and out in
        # order; KV with per-sequence block tables wants the opposite — a
        # flat resident arena whose blocks this class hands out and takes
        # back. Appending here makes every row device-resident so
        # row_view serves any block index; allocation order is then ours,
        # which is what makes slot reuse possible at all.
        for layer in range(n_layers):
            for _ in range(rows):
                self.kp.append(layer)
                self.vp.append(layer)
        # each scratch slot owns exactly one block for its whole life; its
        # length is reset to 0 before every padded step, so it never grows
        for s_ in self.scratch:
            for layer in range(n_layers):
                self._ensure_blocks(layer, s_, 0)
        self._scratch_idx = (torch.tensor(self.scratch, dtype=torch.long,
                                          device=self.device)
                             if self.scratch else None)
        # alias slots (SD2): no rows of their own; their table rows and lengths are written by alias_bind each verify
        self._alias_idx = (torch.tensor(self.alias, dtype=torch.long, device=self.device)
                           if self.alias else None)
        self._alias_off = (torch.arange(1, self.n_alias + 1, dtype=self.seq_lens.dtype, device=self.device)
                           if self.alias else None)
        self._g_sel = None           # a bound decode-graph bucket's selector
        self._g_buckets: dict[int, dict] = {}
        self._step_select = _step_select_env(os.environ.get("E4B_KV_STEP_SELECT", "1"))   # on unless set to 0 (P111)
        self._g_step = None          # the bound bucket's step-level selection, under E4B_KV_STEP_SELECT

    # ---------------------------------------------------------------- write --
    def _quant_bytes(self, x, groups):
        """All of append's FALLIBLE work (allocating quantize + reshapes)
        for one side, done before either pool is touched — so an
        exception (OOM, bad input) leaves both pools' tails in lockstep.
        A throw between V's append and K's would otherwise desync the
        shared block table's row pairing for every later block (review)."""
        from fp8_kv import quantize_kv_fp8

        # geometry from the tensor itself ([T, H, D]): the same call serves
        # every layer of a mixed-geometry cache
        H, D = int(x.shape[-2]), int(x.shape[-1])
        q, s = quantize_kv_fp8(x, group=None if groups == 1
                               else D // groups)
        qb = q.view(torch.uint8).reshape(-1, H * D)             # [T, H*D]
        sb = s.float().reshape(x.shape[0], -1).view(torch.uint8)  # [T, H*g*4]
        return qb, sb

    def _write_side(self, pool, pay_bytes, groups, layer, seq, qb, sb,
                    t_new, seen):
        """Write pre-quantized bytes into `pool`'s block rows for
        (layer, seq) from absolute token position `seen`. Allocation-free
        (narrow + copy_ into existing rows; pool.append cannot overrun —
        capacity is checked before any write). Row indices come from the
        HOST mirror (`_rows`), never the device block table — reading a
        device scalar here (`int(tbl[seq, blk])`) is a stream sync per
        block write, which at L layers x 2 sides x B sequences serializes
        the whole decode step behind the GPU (measured: attention host
        time == attention device time, ~60 ms/step on the dev box)."""
        H, D = self.Hs[layer], self.Ds[layer]
        srow = H * groups * 4
        written = 0
        rows = self._rows[(layer, seq)]
        while written < t_new:
            fill = seen % self.bt
            blk = seen // self.bt
            row = pool.row_view(layer, rows[blk])
            take = min(self.bt - fill, t_new - written)
            row.narrow(0, fill * H * D, take * H * D).copy_(
                qb.narrow(0, written, take).reshape(-1))
            row.narrow(0, pay_bytes + fill * srow, take * srow).copy_(
                sb.narrow(0, written, take).reshape(-1))
            written += take
            seen += take

    def _flat_row_index(self, pool, pay_bytes, groups, layer, slots, fills,
                        T):
        """Flat destination indices for ONE side of a whole batch write.

        ``_write_side`` costs four ``narrow().copy_()`` per sequence per
        side, so a decode step issues 4 x B x L tiny copies — at B=16, L=48
        that measured 3,216 Memcpy DtoD per step whose per-copy cost was
        FLAT from B=1 to B=16 (0.820 -> 0.816 us). Flat cost under a 16.75x
        count increase is the signature of a launch-bound write: the fix is
        fewer launches, not faster copies.

        Grouping sequences by their in-block ``fill`` and issuing one
        scatter per group is not enough — real batches are not uniform mod
        ``bt`` (measured four distinct fills at B=16), so that form still
        paid a scatter and a row gather per group. Indexing the partition
        FLAT removes the fill spread from the launch count entirely: one
        ``index_copy_`` per region per side per layer, whatever the offsets.

        Every address here comes from the ``_rows`` HOST mirror, so this
        adds no device read — the same reason ``_write_side`` reads it.

        Rebuilt only when the cached index is NOT provably one step stale:
        same slots (nobody crossed a block) and fills exactly ``T`` further
        on. The fills half is what makes a fallback step safe — the
        per-sequence path advances ``_seen`` without touching this cache,
        and advancing a stale index would silently write every later token
        to the wrong offset.
        """
        H, D = self.Hs[layer], self.Ds[layer]
        srow = H * groups * 4
        pstride, sstride = T * H * D, T * srow
        key = (id(pool), layer)
        fills_t = tuple(fills)
        st = self._kv_flat_cache.get(key)
        if st is not None and st[0] == slots and st[4] == T \
                and st[3] == tuple(f - T for f in fills):
            st[1].add_(pstride)
            st[2].add_(sstride)
            st[3] = fills_t
            return st[1], st[2]
        dev, rb = pool.dev.device, pool.row_bytes
        ps, ss = [], []
        for slot, fill in zip(slots, fills):
            base = slot * rb
            ps.append(base + fill * H * D)
            ss.append(base + pay_bytes + fill * srow)
        pidx = (torch.as_tensor(ps, dtype=torch.long, device=dev)[:, None]
                + torch.arange(pstride, device=dev)).reshape(-1)
        sidx = (torch.as_tensor(ss, dtype=torch.long, device=dev)[:, None]
                + torch.arange(sstride, device=dev)).reshape(-1)
        self._kv_flat_cache[key] = [slots, pidx, sidx, fills_t, T]
        return pidx, sidx

    def _write_batch(self, pool, pay_bytes, groups, layer, slots, fills,
                     qb, sb, T):
        """One scatter per region for the whole batch (see _flat_row_index).

        ``qb``/``sb`` are the batch's quantized bytes in sequence-major
        order and the index is built in the same order, so the flattened
        source lines up element for element.
        """
        pidx, sidx = self._flat_row_index(pool, pay_bytes, groups, layer,
                                          slots, fills, T)
        flat = pool.dev[layer].reshape(-1)
        flat.index_copy_(0, pidx, qb.reshape(-1))
        flat.index_copy_(0, sidx, sb.reshape(-1))

    def append(self, layer: int, seq: int, k: torch.Tensor, v: torch.Tensor):
        """k, v: [T, H, D] new tokens for one sequence at one layer."""
        self._refuse_alias(seq)
        H, D = self.Hs[layer], self.Ds[layer]
        if k.shape != v.shape or k.shape[1:] != (H, D):
            raise ValueError(f"expected [T, {H}, {D}] at layer {layer}, got "
                             f"{tuple(k.shape)} / {tuple(v.shape)}")
        seen = self._seen[layer][seq]
        if seen + k.shape[0] > self.blocks_per_seq * self.bt:
            raise ValueError(f"sequence {seq} overflows its "
                             f"{self.blocks_per_seq} blocks")
        # quantize BOTH sides before touching ANY shared state — the
        # lockstep invariant is that a failed append changes NOTHING, and
        # _quant_bytes is the fallible part (allocating). Only then claim
        # blocks: allocated ONCE per append, before either side writes —
        # tying allocation to the K side would leave V (which writes
        # first, by the publish-last discipline below) landing on an
        # unassigned table entry, i.e. row 0 for every block.
        vq = self._quant_bytes(v, 1)
        kq = self._quant_bytes(k, self.kgs[layer])
        self._ensure_blocks(layer, seq, (seen + k.shape[0] - 1) // self.bt)
        # V first: K's writer owns the shared block-table entry, and writing
        # K last means a table row is never published for a block whose V
        # bytes haven't landed yet (same publish-last discipline as the pool)
        self._write_side(self.vp, self._v_pays[layer], 1, layer, seq, *vq,
                         k.shape[0], seen)
        self._write_side(self.kp, self._k_pays[layer], self.kgs[layer], layer,
                         seq, *kq, k.shape[0], seen)
        self._seen[layer][seq] = seen + k.shape[0]
        # device-side scalar add, value in kernel args: a plain
        # `seq_lens[layer, seq] = n` wraps the int in a CPU tensor and
        # the blocking copy stream-syncs — B x L times per decode step
        self.seq_lens[layer].narrow(0, seq, 1).add_(k.shape[0])

    def append_many(self, layer: int, seqs, k: torch.Tensor,
                    v: torch.Tensor):
        """k, v: [B, T, H, D] new tokens for B sequences at ONE layer.

        The batched form of append(): ONE quantize kernel per side for
        the whole batch instead of one per sequence — the attribution
        receipts measured the per-sequence form at 196,608 single-token
        quantize calls (~112 ms/step at B=16), essentially the entire
        attention bucket. Bit-identical by construction: FP8 scales are
        per (token, head) or finer (amax over the last dim only), so
        quantizing [B*T, H, D] in one call equals B separate calls.

        The lockstep discipline is append()'s: ALL fallible allocating
        work (both sides' quantize, overflow checks) happens before any
        shared state changes; per-sequence block writes then follow the
        same V-first publish-last order. A failure inside the write loop
        leaves a prefix of sequences appended — fatal to the run, as a
        mid-batch OOM is today.
        """
        if self._alias_set and not self._alias_set.isdisjoint(seqs):
            self._refuse_alias(next(s_ for s_ in seqs if s_ in self._alias_set))
        H, D = self.Hs[layer], self.Ds[layer]
        if k.shape != v.shape or k.dim() != 4 \
                or k.shape[2:] != (H, D):
            raise ValueError(f"expected [B, T, {H}, {D}] at layer {layer}, "
                             f"got {tuple(k.shape)} / {tuple(v.shape)}")
        B, T = k.shape[0], k.shape[1]
        if B != len(seqs):
            raise ValueError(f"{B} rows for {len(seqs)} sequences")
        for seq in seqs:
            if self._seen[layer][seq] + T > self.blocks_per_seq * self.bt:
                raise ValueError(f"sequence {seq} overflows its "
                                 f"{self.blocks_per_seq} blocks")
        vq_all = self._quant_bytes(v.reshape(B * T, H, D), 1)
        kq_all = self._quant_bytes(k.reshape(B * T, H, D),
                                   self.kgs[layer])
        # Batched row writes when every sequence's T tokens land inside
        # one block (always true for T == 1 decode; a straddling prefill
        # tail takes the per-sequence loop below). The applicability read
        # is PURE — nothing has mutated yet, so falling through leaves
        # the loop exactly the call it always was.
        if self._batched_write and \
                all((self._seen[layer][s] % self.bt) + T <= self.bt
                    for s in seqs):
            fills, slots = [], []
            for seq in seqs:
                seen = self._seen[layer][seq]
                blk = seen // self.bt
                self._ensure_blocks(layer, seq, blk)
                fills.append(seen % self.bt)
                slots.append(self.kp._dslot(
                    layer, self._rows[(layer, seq)][blk]))
            slots = tuple(slots)
            if len(set(slots)) == len(slots):
                # V first, publish K second — append()'s lockstep order
                self._write_batch(self.vp, self._v_pays[layer], 1, layer,
                                  slots, fills, vq_all[0], vq_all[1], T)
                self._write_batch(self.kp, self._k_pays[layer], self.kgs[layer],
                                  layer, slots, fills, kq_all[0],
                                  kq_all[1], T)
                for seq in seqs:
                    self._seen[layer][seq] += T
                return self._bump_seq_lens(layer, seqs, T)
        for b, seq in enumerate(seqs):
            seen = self._seen[layer][seq]
            self._ensure_blocks(layer, seq, (seen + T - 1) // self.bt)
            vq = (vq_all[0].narrow(0, b * T, T),
                  vq_all[1].narrow(0, b * T, T))
            kq = (kq_all[0].narrow(0, b * T, T),
                  kq_all[1].narrow(0, b * T, T))
            self._write_side(self.vp, self._v_pays[layer], 1, layer, seq,
                             *vq, T, seen)
            self._write_side(self.kp, self._k_pays[layer], self.kgs[layer],
                             layer, seq, *kq, T, seen)
            self._seen[layer][seq] = seen + T
        self._bump_seq_lens(layer, seqs, T)

    def _bump_seq_lens(self, layer: int, seqs, T: int) -> None:
        """One async device-side add for the whole batch (same reasoning
        as append()'s narrow().add_: no CPU-tensor stream sync)."""
        key = tuple(seqs)
        cached = self._batch_idx_cache.get(key)
        if cached is None:
            idx = torch.as_tensor(list(seqs), dtype=torch.long,
                                  device=self.seq_lens.device)
            ones = torch.ones(len(seqs), dtype=self.seq_lens.dtype,
                              device=self.seq_lens.device)
            cached = (idx, ones)
            self._batch_idx_cache[key] = cached
        idx, ones = cached
        self.seq_lens[layer].index_add_(0, idx, ones * T)

    def _ensure_blocks(self, layer: int, seq: int, upto_blk: int) -> None:
        """Back every block up to ``upto_blk`` with a pool row."""
        self._refuse_alias(seq)
        rows = self._rows.setdefault((layer, seq), [])
        tbl = self.block_table[layer]
        while len(rows) <= upto_blk:
            if not self._free[layer]:
                raise RuntimeError(
                    f"layer {layer} is out of KV blocks — the scheduler "
                    f"admitted past capacity")
            idx = self._free[layer].pop(0)
            # fill_ keeps this async (see append's seq_lens note);
            # prefill flushes allocate prompt/bt blocks x L layers in
            # one burst, so a sync here dominates the flush wall
            tbl[seq].narrow(0, len(rows), 1).fill_(idx)
            rows.append(idx)

    def reset(self, seq: int) -> None:
        """Release a finished sequence's blocks back to the free lists.

        Rows return in ascending order so a fresh run reuses them
        deterministically — a scheduler's block assignment is part of
        what makes a serving run reproducible."""
        self._refuse_alias(seq)
        for layer in range(self.L):
            rows = self._rows.pop((layer, seq), [])
            if rows:
                self._free[layer].extend(rows)
                self._free[layer].sort()
            self._seen[layer][seq] = 0
            self.seq_lens[layer].narrow(0, seq, 1).fill_(0)
            self.block_table[layer][seq].zero_()

    # ------------------------------------------------- bulk bookkeeping (E4B_PAGED_BULK_KV) --
    # A serving loop pays reset / claim / prompt flush once per request, and the per-layer forms above pay them per
    # layer and per block: on Qwen3-30B-A3B's 48 layers at 2048 tokens per slot about 13.5k launches a request
    # (96 + 2,448 kernels and 6,240 copies for a 512-token flush + 4,608 block claims at the slot's first graphed
    # decode + 96). They are host-issued, one after another, on the engine thread, and every resident decode waits for
    # them (stall census, bench/stall-census-2026-10-05). The forms below leave the pool, the block tables, the lengths
    # and the host mirrors exactly as the per-layer forms do, with a launch count independent of layers and blocks.
    # The rows a slot is given are the rows the per-layer forms would give it from the same free lists (lowest first).

    def reset_all_layers(self, seq: int) -> None:
        """:meth:`reset` for every layer with its device writes in two launches: the slot's lengths and its
        block-table rows. The host mirrors are returned exactly as :meth:`reset` returns them."""
        self._refuse_alias(seq)
        for layer in range(self.L):
            rows = self._rows.pop((layer, seq), [])
            if rows:
                self._free[layer].extend(rows)
                self._free[layer].sort()
            self._seen[layer][seq] = 0
        self.seq_lens[:, seq].fill_(0)
        self._bt_all[:, seq].zero_()

    def _layer_index(self, layers) -> torch.Tensor:
        """A device index of ``layers``, built once per layer set: a fresh one is a pageable host-to-device copy, and
        torch's blocking copy synchronizes the stream (it would wait out a prefill forward still on the GPU)."""
        key = tuple(layers)
        cache = self.__dict__.setdefault("_lidx_cache", {})
        t = cache.get(key)
        if t is None:
            t = cache[key] = torch.tensor(key, dtype=torch.long, device=self.device)
        return t

    def _claim_staging(self, n: int) -> torch.Tensor:
        """A host buffer of ``n`` int32 for one async H2D table write. On CUDA it is pinned and taken from a ring of
        two, each guarded by an event recorded after its copy, so a claim never rewrites a buffer a queued copy has
        not read yet (and never waits on the copy just issued)."""
        if self.device.type != "cuda":
            return torch.empty(n, dtype=torch.int32)
        ring = getattr(self, "_claim_ring", None)
        if ring is None:
            size = self.L * self.blocks_per_seq
            ring = self._claim_ring = [[torch.empty(size, dtype=torch.int32).pin_memory(), None] for _ in range(2)]
            self._claim_next = 0
        slot = ring[self._claim_next]
        self._claim_next ^= 1
        if slot[1] is not None:
            slot[1].synchronize()
        if n > slot[0].numel():
            raise ValueError(f"claim of {n} table entries exceeds the staging ring ({slot[0].numel()})")
        self._claim_cur = slot
        return slot[0][:n]

    def claim_blocks(self, seq: int, upto_blk: int, layers=None) -> None:
        """:meth:`_ensure_blocks` for several layers at once: back blocks ``0..upto_blk`` of ``seq`` in every layer of
        ``layers`` (default all) with pool rows. Rows are popped from each layer's free list lowest first, as
        :meth:`_ensure_blocks` pops them, and land in the device tables with ONE async host-to-device copy. Layers
        holding different block counts for the slot take the per-layer path."""
        self._refuse_alias(seq)
        layers = list(range(self.L)) if layers is None else list(layers)
        if not layers:
            return
        have = {len(self._rows.get((layer, seq), ())) for layer in layers}
        if len(have) != 1:
            for layer in layers:
                self._ensure_blocks(layer, seq, upto_blk)
            return
        lo = have.pop()
        n = upto_blk + 1 - lo
        if n <= 0:
            return
        short = [layer for layer in layers if len(self._free[layer]) < n]
        if short:
            raise RuntimeError(f"layer {short[0]} is out of KV blocks — the scheduler admitted past capacity")
        got = []
        for layer in layers:
            free = self._free[layer]
            take = free[:n]
            del free[:n]
            self._rows.setdefault((layer, seq), []).extend(take)
            got.extend(take)
        G = len(layers)
        src = self._claim_staging(G * n)
        src.copy_(torch.tensor(got, dtype=torch.int32))
        if layers == list(range(self.L)):
            self._bt_all[:, seq, lo:lo + n].copy_(src.view(G, n), non_blocking=True)
        else:
            dst = torch.empty(G, n, dtype=torch.int32, device=self.device)
            dst.copy_(src.view(G, n), non_blocking=True)
            self._bt_all[self._layer_index(layers), seq, lo:lo + n] = dst
        if self.device.type == "cuda":
            ev = torch.cuda.Event()
            ev.record()
            self._claim_cur[1] = ev

    def claim_many(self, wants: dict, layers=None) -> int:
        """:meth:`claim_blocks` for several slots at once, in ONE async host-to-device copy (lever G1's per-step claim,
        ``bench/kv-pool-g/DESIGN.md``). ``wants`` maps a slot to the last block it must own. Rows are popped from each
        layer's free list lowest first, slot by slot in ``wants``' order, so the rows are the ones consecutive
        :meth:`claim_blocks` calls would give. Nothing is popped unless every layer has room for the whole step.

        The (layer, slot, block, row) entries are packed into one pinned int32 buffer (a ring of two, each guarded by
        an event recorded after its copy, as :meth:`_claim_staging`), copied to the device and scattered into
        ``_bt_all`` with ``index_put_``: two launches on the current stream, ordered before whatever the caller queues
        next. A slot holding different block counts across ``layers`` is refused (bulk claims never leave one). Returns
        the entries written."""
        layers = list(range(self.L)) if layers is None else list(layers)
        if not layers or not wants:
            return 0
        plan = []
        for seq, upto in wants.items():
            self._refuse_alias(seq)
            have = {len(self._rows.get((layer, seq), ())) for layer in layers}
            if len(have) != 1:
                # bulk claims keep every layer of a slot at one block count; a mismatch is a bookkeeping fault, and
                # claiming per layer here would pop rows before the step's room check
                raise RuntimeError(f"slot {seq} holds different block counts across layers {sorted(have)}; "
                                   f"claim_many claims whole steps only")
            lo = have.pop()
            n = int(upto) + 1 - lo
            if n > 0:
                plan.append((seq, lo, n))
        total = sum(n for _, _, n in plan)
        if not total:
            return 0
        short = [layer for layer in layers if len(self._free[layer]) < total]
        if short:
            raise RuntimeError(f"layer {short[0]} is out of KV blocks — the scheduler admitted past capacity")
        ent = []
        for seq, lo, n in plan:
            for layer in layers:
                free = self._free[layer]
                take = free[:n]
                del free[:n]
                self._rows.setdefault((layer, seq), []).extend(take)
                ent.extend((layer, seq, lo + j, row) for j, row in enumerate(take))
        m = len(ent)
        host = self._many_staging(4 * m)
        host.copy_(torch.tensor(ent, dtype=torch.int32).t().reshape(-1))
        dev = torch.empty(4 * m, dtype=torch.int32, device=self.device)
        dev.copy_(host, non_blocking=True)
        idx = dev.view(4, m)
        self._bt_all.index_put_((idx[0].long(), idx[1].long(), idx[2].long()), idx[3])
        if self.device.type == "cuda":
            ev = torch.cuda.Event()
            ev.record()
            self._many_cur[1] = ev
        return m

    def _many_staging(self, n: int) -> torch.Tensor:
        """:meth:`claim_many`'s host buffer: a ring of two pinned int32 buffers that grow to the largest step seen, each
        guarded by the event recorded after its copy, so a claim never rewrites a buffer a queued copy has not read."""
        if self.device.type != "cuda":
            return torch.empty(n, dtype=torch.int32)
        ring = self.__dict__.setdefault("_many_ring", [[None, None], [None, None]])
        nxt = self.__dict__.get("_many_next", 0)
        self._many_next = nxt ^ 1
        slot = ring[nxt]
        if slot[1] is not None:
            slot[1].synchronize()
        if slot[0] is None or slot[0].numel() < n:
            slot[0] = torch.empty(max(n, 1024), dtype=torch.int32).pin_memory()
        self._many_cur = slot
        return slot[0][:n]

    def append_prompt(self, seq: int, layers, ks, vs) -> bool:
        """:meth:`append` of a fresh slot's whole prompt for several layers at once. ``ks[i]``, ``vs[i]``: ``[T, H, D]``
        for ``layers[i]``.

        Layers are grouped by geometry (kv heads, head_dim, key groups). Per group the staged K/V are stacked and
        quantized once per side; the scales are per (token, head) or per group, so this is bitwise the per-layer
        quantize. Each side then writes full blocks with one ``index_copy_`` per region, payload and scales, and a
        partial tail block with one more. Rows are claimed with :meth:`claim_blocks` first; the flat row ids are read
        back on the device from the tables that claim just wrote. Values are written before keys, as in
        :meth:`append`.

        A slot that already holds tokens in any of these layers, prompts of different lengths, or an arena that is not
        the up-front-claimed one takes :meth:`append` per layer, unchanged.

        Returns True when the bulk path wrote the prompt (or there was nothing to write), False when it took the
        per-layer path, so a caller can count what actually ran."""
        self._refuse_alias(seq)
        layers = list(layers)
        if len(ks) != len(layers) or len(vs) != len(layers):
            raise ValueError(f"{len(ks)} K / {len(vs)} V tensors for {len(layers)} layers")
        if not layers:
            return True
        for layer, k, v in zip(layers, ks, vs):
            H, D = self.Hs[layer], self.Ds[layer]
            if k.shape != v.shape or k.dim() != 3 or tuple(k.shape[1:]) != (H, D):
                raise ValueError(f"expected [T, {H}, {D}] at layer {layer}, got {tuple(k.shape)} / {tuple(v.shape)}")
        T = int(ks[0].shape[0])
        arena = all(h == 0 for h in self.kp.head + self.vp.head) and \
            all(t == self._n_rows for t in self.kp.tail + self.vp.tail)
        if (any(self._seen[layer][seq] for layer in layers) or any(int(k.shape[0]) != T for k in ks)
                or not arena or T == 0):
            for layer, k, v in zip(layers, ks, vs):
                self.append(layer, seq, k.contiguous(), v.contiguous())
            return False
        if T > self.blocks_per_seq * self.bt:
            raise ValueError(f"sequence {seq} overflows its {self.blocks_per_seq} blocks")
        groups: dict = {}
        for i, layer in enumerate(layers):
            groups.setdefault((self.Hs[layer], self.Ds[layer], self.kgs[layer]), []).append(i)
        # a group's stacked input is bounded (BULK_GROUP_BYTES per side): the quantize's fp32 temporaries are ~4x it
        # and both sides' stacks are alive together, so a group peaks near 7x the bound (~112 MiB); every group's
        # quantized bytes (the prompt's FP8 K/V) are held until the writes. The whole is append_prompt_peak_bytes().
        # Under an eager forward it borrows memory the forward just returned to the allocator. Under the first-chunk
        # prefill graph the forward's working set sits in the graph's PRIVATE pool, so this transient is NEW memory on
        # top of it: PagedModelRunner.enable_prefill_graph counts it in its `auto` headroom when bulk_kv is on.
        bounded = []
        for (H, D, kg), idx in groups.items():
            per = max(1, BULK_GROUP_BYTES // max(1, T * H * D * 2))
            bounded += [((H, D, kg), idx[j:j + per]) for j in range(0, len(idx), per)]
        # every fallible, allocating step (stack + quantize) for every group before any shared state moves
        quant = []
        for (H, D, kg), idx in bounded:
            G = len(idx)
            K = torch.stack([ks[i] for i in idx]).reshape(G * T, H, D)
            V = torch.stack([vs[i] for i in idx]).reshape(G * T, H, D)
            quant.append(((H, D, kg), [layers[i] for i in idx], self._quant_bytes(V, 1), self._quant_bytes(K, kg)))
        nblk = -(-T // self.bt)
        self.claim_blocks(seq, nblk - 1, layers)
        bt, nfull, tail = self.bt, T // self.bt, T % self.bt
        for (H, D, kg), lays, vq, kq in quant:
            G = len(lays)
            lidx = self._layer_index(lays)
            tbl = self._bt_all[:, seq, :nblk].index_select(0, lidx).to(torch.long)
            # V first, K last (append's publish-last order)
            for pool, pay, groups_, (qb, sb) in ((self.vp, self._v_pays[lays[0]], 1, vq),
                                                 (self.kp, self._k_pays[lays[0]], kg, kq)):
                srow = H * groups_ * 4
                gidx = lidx[:, None] * pool.device_rows + tbl              # [G, nblk] flat pool rows
                flat2d = pool.dev.view(-1, pool.row_bytes)
                qb3, sb3 = qb.view(G, T, H * D), sb.view(G, T, srow)
                if nfull:
                    ix = gidx[:, :nfull].reshape(-1)
                    flat2d[:, :bt * H * D].index_copy_(
                        0, ix, qb3[:, :nfull * bt].reshape(G * nfull, bt * H * D))
                    flat2d[:, pay:pay + bt * srow].index_copy_(
                        0, ix, sb3[:, :nfull * bt].reshape(G * nfull, bt * srow))
                if tail:
                    ix = gidx[:, nfull].contiguous()
                    flat2d[:, :tail * H * D].index_copy_(0, ix, qb3[:, nfull * bt:].reshape(G, tail * H * D))
                    flat2d[:, pay:pay + tail * srow].index_copy_(0, ix, sb3[:, nfull * bt:].reshape(G, tail * srow))
        for layer in layers:
            self._seen[layer][seq] = T
        if layers == list(range(self.L)):
            self.seq_lens[:, seq].add_(T)
        else:
            self.seq_lens[self._layer_index(layers), seq] += T
        return True

    def append_prompt_peak_bytes(self, T: int, layers=None) -> int:
        """An upper bound on the device memory :meth:`append_prompt` allocates for a ``T``-token prompt, beyond its
        inputs: :func:`append_prompt_peak_bytes` over these layers' geometry. ``T`` at the slot's capacity gives the bound
        for any prompt."""
        layers = list(range(self.L)) if layers is None else list(layers)
        return append_prompt_peak_bytes([(self.Hs[i], self.Ds[i], self.kgs[i]) for i in layers], T)

    def free_blocks(self, layer: int = 0) -> int:
        return len(self._free[layer])

    def append_batch(self, layer: int, k: torch.Tensor, v: torch.Tensor):
        """Decode-step append: k, v [B, H, 1, D] (attention layout) for all
        sequences at once. One call point for Phase 9's scheduler.
        Delegates to append_many, so it now quantizes the whole batch in
        one kernel per side instead of one per sequence."""
        self.append_many(layer, list(range(self.B)),
                         k.permute(0, 2, 1, 3).contiguous(),
                         v.permute(0, 2, 1, 3).contiguous())

    # ----------------------------------------------------------------- read --
    # ------------------------------------------------- graph mode (B1d) --
    def graph_mode_init_batch(self, slots, upto_tokens: int | None = None):
        """PREREG-bv3: `graph_mode_init` for a LIST of slots -- each
        slot's window is block-ensured up front, and `append_graph_bt1`
        appends one token to every slot per call. Reuses the single-slot
        init for the shared flat-view/arange state."""
        slots = list(slots)
        assert slots, "graph_mode_init_batch needs at least one slot"
        self.graph_mode_init(seq=slots[0], upto_tokens=upto_tokens)
        upto = (self.blocks_per_seq * self.bt if upto_tokens is None
                else upto_tokens)
        for s_ in slots[1:]:
            for layer in range(self.L):
                self._ensure_blocks(layer, s_, (upto - 1) // self.bt)
        self._g_slots = slots
        # one-launch-per-side batched append (census: the per-slot loop
        # is 1,536 launches / 2.07 ms per B=16 step). Feature-detected
        # like _fused_append; the loop below stays as the fallback.
        try:
            from fp8_kv import fp8_kv_append_bt1  # noqa: F401
            self._bt1_append = self._fused_append
        except ImportError:
            self._bt1_append = False
        if self._bt1_append:
            dev = self.device
            self._g_slot_idx = torch.tensor(slots, dtype=torch.int32,
                                            device=dev)
            self._g_slot_ones = torch.ones(len(slots), dtype=torch.int32,
                                           device=dev)
            self._g_slot_l = self._g_slot_idx.to(torch.int64)

    def append_graph_bt1(self, layer: int, k: torch.Tensor,
                         v: torch.Tensor):
        """One-token append to EACH of the batch slots (PREREG-bv3).
        k, v: [B, H, D], row i belonging to ``self._g_slots[i]``. A
        per-slot loop of the certified single-slot path -- ~2B extra
        launches per layer call, noise against the step -- with each
        slot's own device table row and lens scalar, so every address
        stays device-computed and the captured replay writes to each
        slot's ADVANCING position."""
        slots = self._g_slots
        assert k.shape[0] == len(slots), (k.shape, len(slots))
        if getattr(self, "_bt1_append", False):
            # ONE launch per side for the whole batch (bitwise against
            # the per-slot loop -- gnf4 test_fp8_kv_append.py's bt1
            # gate); the lens publish batches to one index_add_, after
            # both sides read, preserving the T=1 ordering.
            from fp8_kv import fp8_kv_append_bt1
            fp8_kv_append_bt1(v, self._g_vflat[layer],
                              self.block_table[layer], self._g_slot_idx,
                              self.seq_lens[layer], self.v_row,
                              self._v_pays[layer], self.bt, 1)
            fp8_kv_append_bt1(k, self._g_kflat[layer],
                              self.block_table[layer], self._g_slot_idx,
                              self.seq_lens[layer], self.k_row,
                              self._k_pays[layer], self.bt, self.kgs[layer])
            if self._g_step is None:     # under E4B_KV_STEP_SELECT the step publishes once, after it
                self.seq_lens[layer].index_add_(0, self._g_slot_l,
                                                self._g_slot_ones)
            return
        for i, s_ in enumerate(slots):
            self._g_seq = s_
            self.append_graph_t1(layer, k.narrow(0, i, 1),
                                 v.narrow(0, i, 1))
        self._g_seq = slots[0]

    def graph_mode_init(self, seq: int = 0, upto_tokens: int | None = None):
        """Prepare device-addressed T=1 appends for ONE slot so a decode
        step is CUDA-graph-capturable (PREREG-b1d). Two moves:

        * every block the window can touch is ensured UP FRONT (host
          allocation leaves the step entirely — no boundary fallback);
        * flat uint8 views of each side's layer arenas are cached, and
          `append_graph_t1` addresses them from DEVICE state (seq_lens +
          block table) each execution — never from host ``_seen``, whose
          capture-time value a graph would bake (the e4b#227 finding).

        Requires the KV arena in its up-front-claimed, never-demoted
        state (asserted): row ids then equal ring slots and the flat
        views are stable for the life of the pool."""
        for pool in (self.kp, self.vp):
            assert all(h == 0 for h in pool.head) and \
                all(t == self._n_rows for t in pool.tail), \
                "graph mode needs the up-front-claimed KV arena"
        upto = (self.blocks_per_seq * self.bt if upto_tokens is None
                else upto_tokens)
        for layer in range(self.L):
            self._ensure_blocks(layer, seq, (upto - 1) // self.bt)
        self._g_seq = seq
        dev = self.device
        self._g_ar_hd = [torch.arange(h * d, device=dev)
                         for h, d in zip(self.Hs, self.Ds)]
        self._g_ar_sk = [torch.arange(h * kg * 4, device=dev)
                         for h, kg in zip(self.Hs, self.kgs)]
        self._g_ar_sv = [torch.arange(h * 4, device=dev) for h in self.Hs]
        self._g_kflat = [self.kp.dev[layer].reshape(-1)
                         for layer in range(self.L)]
        self._g_vflat = [self.vp.dev[layer].reshape(-1)
                         for layer in range(self.L)]
        self.graph_t1 = True

    def append_graph_t1(self, layer: int, k: torch.Tensor, v: torch.Tensor):
        """One-token, one-slot append with every address computed on
        device (capture-safe). k, v: [1, H, D]. The write position comes
        from ``seq_lens`` and the row id from the device block table, so
        a captured replay writes to the ADVANCING position; the tail
        ``seq_lens.add_(1)`` is the same in-place publish the attention
        kernel reads."""
        seq = self._g_seq
        if self._fused_append:
            # AMENDMENT-f1-stageB-b2: one launch per side replaces the
            # ~25-launch eager sequence below. Bitwise against it
            # (gnf4 test_fp8_kv_append.py, re-asserted on-box before any
            # timed arm); the seq_lens publish stays the separate
            # in-stream op it is today.
            from fp8_kv import fp8_kv_append_t1
            fp8_kv_append_t1(v, self._g_vflat[layer],
                             self.block_table[layer][seq],
                             self.seq_lens[layer].narrow(0, seq, 1),
                             self.v_row, self._v_pays[layer], self.bt, 1)
            fp8_kv_append_t1(k, self._g_kflat[layer],
                             self.block_table[layer][seq],
                             self.seq_lens[layer].narrow(0, seq, 1),
                             self.k_row, self._k_pays[layer], self.bt,
                             self.kgs[layer])
            self.seq_lens[layer].narrow(0, seq, 1).add_(1)
            return
        vq, vs = self._quant_bytes(v, 1)
        kq, ks = self._quant_bytes(k, self.kgs[layer])
        pos = self.seq_lens[layer, seq].to(torch.long)
        blk = torch.div(pos, self.bt, rounding_mode="floor")
        fill = pos - blk * self.bt
        row = (self.block_table[layer][seq]
               .gather(0, blk.reshape(1).to(torch.int64))
               .reshape(()).to(torch.long))
        H = self.Hs[layer]
        hd = H * self.Ds[layer]
        vbase = row * self.v_row + fill * hd
        self._g_vflat[layer].scatter_(0, vbase + self._g_ar_hd[layer], vq.reshape(-1))
        vsb = row * self.v_row + self._v_pays[layer] + fill * (H * 4)
        self._g_vflat[layer].scatter_(0, vsb + self._g_ar_sv[layer], vs.reshape(-1))
        kbase = row * self.k_row + fill * hd
        self._g_kflat[layer].scatter_(0, kbase + self._g_ar_hd[layer], kq.reshape(-1))
        ksb = (row * self.k_row + self._k_pays[layer]
               + fill * (H * self.kgs[layer] * 4))
        self._g_kflat[layer].scatter_(0, ksb + self._g_ar_sk[layer], ks.reshape(-1))
        self.seq_lens[layer].narrow(0, seq, 1).add_(1)

    # ---------------------------------------- bucketed decode graphs (#511) --
    def graph_bucket(self, b: int) -> dict:
        """Persistent device tensors for one decode-graph bucket of ``b``
        rows: the slot ids the fused batch append writes through, the
        selector attention reads through, and the lens increment. Created
        once; a captured graph holds their addresses, and every step
        rewrites their CONTENTS (:meth:`graph_bucket_load`)."""
        st = self._g_buckets.get(b)
        if st is None:
            dev = self.device
            st = {"b": b,
                  "slot_idx": torch.zeros(b, dtype=torch.int32, device=dev),
                  "slot_l": torch.zeros(b, dtype=torch.int64, device=dev),
                  "ones": torch.ones(b, dtype=torch.int32, device=dev),
                  "host": torch.zeros(b, dtype=torch.int64).pin_memory()
                  if torch.device(dev).type == "cuda" else torch.zeros(b, dtype=torch.int64)}
            if self._step_select:
                # this step's rows of every layer's table and lengths (attention's view), and the publish increment
                st["tbl"] = torch.zeros(self.L, b, self.blocks_per_seq, dtype=torch.int32, device=dev)
                st["lens"] = torch.zeros(self.L, b, dtype=self.seq_lens.dtype, device=dev)
                st["ones_lb"] = torch.ones(self.L, b, dtype=self.seq_lens.dtype, device=dev)
            self._g_buckets[b] = st
        return st

    def graph_bucket_bind(self, st: dict, slots) -> None:
        """Route the graph-mode batch append and attention through bucket
        ``st``. ``slots`` is the Python list the paged-attention shim checks
        against ``ctx.slots`` at trace time; at replay only the device
        tensors are read. Needs the fused one-launch batch append: its
        per-slot fallback addresses slots from Python ints, which a graph
        would bake."""
        if not getattr(self, "graph_t1", False):
            raise RuntimeError("graph_bucket_bind: call graph_mode_init first")
        try:
            from fp8_kv import fp8_kv_append_bt1  # noqa: F401
        except ImportError as e:
            raise RuntimeError(
                "bucketed decode graphs need grouped-nf4-gemm's fused batch KV "
                f"append (fp8_kv.fp8_kv_append_bt1): {e}") from e
        if not self._fused_append:
            why = fused_append_unsupported(cuda_capability(self.device))
            raise RuntimeError("bucketed decode graphs need the fused KV append, which is off here: "
                               + (why or "E4B_FUSED_KV_APPEND=0, or the installed grouped-nf4-gemm lacks it"))
        if len(slots) != st["b"]:
            raise ValueError(f"bucket of {st['b']} rows bound to {len(slots)} slots")
        self._g_slots = list(slots)
        self._bt1_append = self._fused_append
        self._g_slot_idx, self._g_slot_l = st["slot_idx"], st["slot_l"]
        self._g_slot_ones, self._g_sel = st["ones"], st["slot_l"]
        self._g_step = st if self._step_select else None

    def graph_bucket_unbind(self) -> None:
        self._g_sel = None
        self._g_step = None

    def graph_bucket_load(self, st: dict, slots, staging=None) -> None:
        """Write this step's slot ids into the bucket's device tensors
        (one pinned H2D copy, async) and zero the scratch slots' lengths,
        so a padding row always writes and reads its scratch slot's first
        position and never walks off its single block.

        ``staging``: a host int64 buffer of ``st["b"]`` entries to copy through instead of the bucket's own. The
        bucket's buffer is safe only while every step syncs before the next load (the synchronous decode path); a
        caller that loads the next step with this one still queued (the runner's decode lookahead) passes a buffer no
        queued copy still reads."""
        host = st["host"] if staging is None else staging
        host.copy_(torch.as_tensor(list(slots), dtype=torch.int64))
        st["slot_l"].copy_(host, non_blocking=True)
        st["slot_idx"].copy_(st["slot_l"])
        self.reset_scratch_lens()
        if self._step_select:
            # the step's selection, for every layer at once and outside any graph: the rows of the block tables, and
            # the lengths each layer's attention reads after that layer appends this step's token (pre-step + 1)
            torch.index_select(self._bt_all, 1, st["slot_l"], out=st["tbl"])
            torch.index_select(self.seq_lens, 1, st["slot_l"], out=st["lens"])
            st["lens"].add_(1)

    def graph_bucket_publish(self, st: dict) -> None:
        """After a bucket step under ``E4B_KV_STEP_SELECT``: every layer's lengths advance by the step's one token,
        in one launch (the per-layer ``index_add_`` in :meth:`append_graph_bt1` is skipped while the step runs, so
        each layer's append still writes at its pre-step length). A no-op without the switch."""
        if self._step_select:
            self.seq_lens.index_add_(1, st["slot_l"], st["ones_lb"])

    def reset_scratch_lens(self) -> None:
        if self._scratch_idx is not None:
            self.seq_lens.index_fill_(1, self._scratch_idx, 0)

    # ------------------------------------------------ speculative verify (SD2, bench/sd2/PREREG-sd2.md B1, B2) --
    def _refuse_alias(self, seq) -> None:
        """Alias slots are addressed only on the device, through a bucket bound by :meth:`alias_bind`. A
        host-addressed path would give one rows of its own (overwriting the table row the bind copied in), or write
        its host mirror, so every such entry point refuses an alias id."""
        if seq in self._alias_set:
            raise ValueError(f"slot {seq} is an alias slot (SD2): only a bucket bound by alias_bind addresses it")

    def alias_bind(self, slot: int, n: int) -> list:
        """Point alias slots ``0..n-1`` at ``slot`` for one verify step and return their ids. Every layer's
        block-table row of ``slot`` is copied into each, and alias ``i`` gets the length ``seq_lens[slot] + i + 1``:
        two launches, no host read. A decode bucket over ``[slot] + aliases`` then appends verify row ``i`` at the
        slot's length plus ``i``, into the slot's own blocks, and reads ``i + 1`` past it.

        Call it before :meth:`graph_bucket_load`, whose step selection reads these rows. The lengths are rewritten
        every step, so a stale alias is never read. The slot must already own every block the verify can reach (a
        graphed slot does from its first decode, ``PagedModelRunner._ensure_graph_ready``): an alias owns no row, and
        an append through it never allocates.

        The slot's host mirror ``_seen`` is stale from the verify's append until :meth:`note_len`: a bound bucket
        moves only the device lengths. Nothing host-addressed may run on the slot between :meth:`set_len_device`
        and :meth:`note_len`."""
        if not 0 <= n <= self.n_alias:
            raise ValueError(f"a verify of {n} alias rows; the pool has {self.n_alias} alias slots")
        if not 0 <= slot < self.B:
            raise ValueError(f"alias_bind needs a real slot, got {slot} (real slots are 0..{self.B - 1})")
        if n == 0:
            return []
        idx = self._alias_idx[:n]
        self._bt_all.index_copy_(1, idx, self._bt_all[:, slot:slot + 1].expand(-1, n, -1).contiguous())
        self.seq_lens.index_copy_(1, idx, self.seq_lens[:, slot:slot + 1] + self._alias_off[:n])
        return self.alias[:n]

    def set_len_device(self, slot: int, n: torch.Tensor) -> None:
        """Set ``slot``'s length on every layer to the device scalar ``n``, with no host read: after a verify,
        ``base + accepted + 1``. It must be the step's LAST length write, after :meth:`graph_bucket_publish`, which
        adds one to every bound row. The caller guarantees ``n`` does not pass what the step appended (no check is
        possible without a sync) and sets the host mirror with :meth:`note_len` once it reads the accept back."""
        self.seq_lens[:, slot].copy_(n.reshape(()).to(self.seq_lens.dtype).expand(self.L))

    def note_len(self, slot: int, n: int) -> None:
        """The host mirror ``_seen`` of a length :meth:`set_len_device` wrote on the device."""
        for layer in range(self.L):
            self._seen[layer][slot] = int(n)

    def kernel_args(self, layer: int, slots=None):
        """What the fused kernel consumes: flat pool bytes, block table,
        per-sequence lengths.

        ``slots`` selects WHICH sequences form the kernel's batch. The
        kernel indexes its tables by BATCH ROW, so a caller decoding a
        subset — which is every step of a real serving loop, where
        sequences finish at different times — must hand it rows in that
        subset's order. Passing the full tables works only while the
        active set happens to be slots 0..B-1 in order; anything else
        silently attends one sequence over another's KV, and it reads as
        a model that starts coherent and degenerates."""
        tbl, lens = self.block_table[layer], self.seq_lens[layer]
        st = self._g_step
        if slots is not None and st is not None and len(slots) == st["b"]:
            # E4B_KV_STEP_SELECT: this layer's slice of the step's selection (no launch); the lengths already count
            # this layer's appended token
            return (self.kp.dev[layer].flatten(), self.vp.dev[layer].flatten(), st["tbl"][layer], st["lens"][layer])
        if slots is None and (self.n_scratch or self.n_alias):
            # scratch slots trail the real ones; the no-slots form keeps
            # meaning "the batch", exactly as before they existed
            tbl, lens = tbl[:self.B], lens[:self.B]
        elif slots is not None and self._g_sel is not None \
                and len(slots) == self._g_sel.numel():
            # a bound decode-graph bucket (#511): the selector is ONE
            # persistent device tensor rewritten in place before each step,
            # so a captured graph reads the current active set -- a cached
            # per-tuple tensor would bake the capture-time set into it
            tbl, lens = (tbl.index_select(0, self._g_sel),
                         lens.index_select(0, self._g_sel))
        elif slots is not None:
            # the selector is CACHED per active-set: building it fresh is a
            # pageable H2D copy, and torch's non_blocking=False copy ends
            # in a full stream synchronize — one per LAYER per step, which
            # serializes decode behind the GPU exactly like the block-table
            # read did (measured together: attention host time == device
            # time until both were removed)
            key = tuple(slots)
            sel = self._slot_sel.get(key)
            if sel is None:
                sel = torch.as_tensor(list(key), dtype=torch.long,
                                      device=tbl.device)
                self._slot_sel[key] = sel
            tbl, lens = tbl.index_select(0, sel), lens.index_select(0, sel)
        return (self.kp.dev[layer].flatten(), self.vp.dev[layer].flatten(),
                tbl, lens)

    def attention(self, layer: int, q: torch.Tensor, slots=None,
                  lens_override: torch.Tensor | None = None,
                  **kw) -> torch.Tensor:
        """Paged FP8 decode attention for q [B, H_q, D]; dequantization
        happens in the kernel's registers (invariant 2). ``slots`` maps
        q's rows to sequences (see :meth:`kernel_args`).

        ``lens_override`` replaces the per-row lengths read from
        ``seq_lens`` (PREREG-s2lite): speculative verification maps K+1
        q-rows to ONE slot with staggered lengths ``base + 1 .. base +
        K+1`` so row i attends over the past plus draft tokens 0..i —
        causality enforced by lengths over already-appended K/V, with no
        kernel change (the kernel always consumed a lens tensor). Must
        be int32, on-device, one entry per q row."""
        from fp8_paged_attn import fp8_paged_decode_attention

        # older kernel wheels (< 0.24) take neither window nor sinks; drop
        # them there rather than raise, and say so once -- the family then
        # runs the pre-parity (wrong) attention, which the K8 gate catches
        if not _kernel_takes(fp8_paged_decode_attention, "window", "sinks"):
            dropped = _parity_options_in_use(kw)
            if dropped and not getattr(self, "_warned_parity", False):
                self._warned_parity = True
                print("PARITY WARNING: installed fp8_paged_decode_attention takes no "
                      f"{dropped}; this family's paged attention is NOT valid on this "
                      "wheel (needs grouped-nf4-gemm >= 0.24)", flush=True)
            kw = {k: v for k, v in kw.items() if k not in ("window", "sinks")}
        kf, vf, tbl, lens = self.kernel_args(layer, slots)
        if lens_override is not None:
            if lens_override.shape != lens.shape:
                raise ValueError(f"lens_override {tuple(lens_override.shape)}"
                                 f" must match rows {tuple(lens.shape)}")
            lens = lens_override.to(dtype=lens.dtype)
        if tbl.shape[0] != q.shape[0]:
            raise ValueError(
                f"q has {q.shape[0]} rows but the block table has "
                f"{tbl.shape[0]} — pass slots= so rows map to sequences")
        # E4B_ATTN_SPLIT_FIXED: n_split S at every row count, and every other choice the wrapper makes per call pinned
        # (SPLIT_FIXED_PINS), so a row's arithmetic cannot depend on the bucket it decodes in. Never on speculative
        # verify (lens_override), never over a caller's n_split or packed heads, and on the fp8 split path only.
        if (self.split_fixed and lens_override is None and "n_split" not in kw and not kw.get("pack_heads")
                and self._split_cap_applies(layer, q, kw)):
            # a caller's own value (constant at its call site) stands; an absent or None one would leave the wrapper's
            # per-call default, so it takes the pin
            kw = {**kw, **{k: v for k, v in SPLIT_FIXED_PINS.items() if kw.get(k) is None},
                  "n_split": int(self.split_fixed)}
            self._record_fixed(layer, q, tbl, kw)
        # never on speculative verify (lens_override): lane P143 read the decode step only
        elif (self.split_cap and lens_override is None and "n_split" not in kw and not kw.get("pack_heads")
                and _kernel_takes(fp8_paged_decode_attention, "split_cap") and self._split_cap_applies(layer, q, kw)):
            kw = dict(kw, split_cap=int(self.split_cap))
            self._record_split(layer, q, tbl, kw)
        return fp8_paged_decode_attention(
            q, kf, vf, tbl, lens, n_kv_heads=self.Hs[layer],
            head_dim=self.Ds[layer], block_tokens=self.bt,
            k_groups=self.kgs[layer], k_row_bytes=self.k_row,
            v_row_bytes=self.v_row, **kw)

    def _split_cap_applies(self, layer: int, q: torch.Tensor, kw: dict) -> bool:
        """The cap applies on the fp8 split path only, the one lane P143 measured: the compute mode is the kernel's own
        choice (``fp8_paged_attn._compute_default``, as it resolves an unset ``compute``) unless the caller names it."""
        import fp8_paged_attn
        # the kernel's own verdict: the same inputs its wrapper hands _compute_default (fp8 applicability depends on
        # v_groups == 1 and on ktile), so a caller's ktile can never send the cap into the f32 path
        compute = kw.get("compute") or fp8_paged_attn._compute_default(
            q, self.Ds[layer], self.kgs[layer], kw.get("v_groups", 1), pack_heads=False, block_tokens=self.bt,
            n_kv_heads=self.Hs[layer], ktile=kw.get("ktile"))
        return compute == "fp8"

    def _record_split(self, layer: int, q: torch.Tensor, tbl: torch.Tensor, kw: dict):
        """The engagement record (lane P143): for each row count B the cap met, the library's plan and the split count it
        runs, from grouped-nf4-gemm's own ``decode_split_plan`` (a captured graph replays without calling back here, so
        this is what each bucket captured with). Keyed by B alone: a family whose layers differ in KV geometry would
        keep its first layer's plan (moot for qwen3_moe, the one family P143 reads)."""
        import fp8_paged_attn
        plan_fn = getattr(fp8_paged_attn, "decode_split_plan", None)
        B = int(q.shape[0])
        rec = self.split_plans.setdefault(B, {"calls": 0})
        rec["calls"] += 1
        if plan_fn is not None and "plan" not in rec:
            args = (B, self.Hs[layer], int(tbl.shape[1]))
            kwargs = dict(block_tokens=self.bt, ktile=kw.get("ktile") or 64, compute="fp8", pack_heads=False,
                          sms=_sm_count(q.device))
            rec["plan"] = plan_fn(*args, **kwargs)
            rec["n_split"] = plan_fn(*args, split_cap=int(self.split_cap), **kwargs)

    def _record_fixed(self, layer: int, q: torch.Tensor, tbl: torch.Tensor, kw: dict):
        """The fixed split's engagement record, as :meth:`_record_split`'s: for each row count B, the calls, the plan
        the library would have chosen (for reference), the split count handed over, and every pinned choice as handed
        (a captured graph replays without calling back here, so this is what each bucket captured with)."""
        import fp8_paged_attn
        plan_fn = getattr(fp8_paged_attn, "decode_split_plan", None)
        B = int(q.shape[0])
        rec = self.split_fixed_plans.setdefault(B, {"calls": 0})
        rec["calls"] += 1
        if "n_split" not in rec:
            rec["n_split"] = int(kw["n_split"])
            rec["pins"] = {k: kw.get(k) for k in SPLIT_FIXED_PINS}
            if plan_fn is not None:
                rec["plan"] = plan_fn(B, self.Hs[layer], int(tbl.shape[1]), block_tokens=self.bt,
                                      ktile=kw.get("ktile") or 64, compute="fp8", pack_heads=False,
                                      sms=_sm_count(q.device))

    def seen_device(self, layer: int, seq: int) -> int:
        """Authoritative token count for (layer, seq), read from DEVICE
        state. ``_seen`` is the host mirror maintained by the eager
        append paths; ``append_graph_t1`` deliberately advances only
        ``seq_lens`` (its whole point is that a captured replay needs no
        host state), so after any graph-mode decoding ``_seen`` is
        STALE. Anything that must know the true length -- rewind, a
        speculative base capture -- reads here and pays the sync
        (Bugbot, e4b#241)."""
        return int(self.seq_lens[layer, seq].item())

    def rewind(self, seq: int, to_tokens: int):
        """Roll a sequence back to ``to_tokens`` tokens across ALL
        layers (PREREG-s2lite): speculative verification appends the
        full K+1 window before reading, and rejected tokens must not be
        readable afterward. Reads are governed entirely by lengths --
        the stale bytes past the new length are unreachable -- so
        rewind is a length update with no data movement.

        Both mirrors are set: ``seq_lens`` (what the kernel reads) and
        ``_seen`` (what the eager append paths advance), so a rewind is
        safe whichever append path runs next. The forward check uses the
        DEVICE length, since ``_seen`` may be stale under graph mode --
        and that check is a ``.item()``, i.e. a SYNC, which is illegal
        under stream capture. Callers inside a capture (or timing a
        capture's replays) use :meth:`rewind_nosync`, which does the
        same length writes with no read-back."""
        self._refuse_alias(seq)
        for layer in range(self.L):
            cur = self.seen_device(layer, seq)
            if to_tokens > cur:
                raise ValueError(f"rewind forward (layer {layer}: "
                                 f"{cur} -> {to_tokens})")
        self.rewind_nosync(seq, to_tokens)

    def rewind_nosync(self, seq: int, to_tokens: int):
        """:meth:`rewind` without the device-length read-back.

        Capture-safe and sync-free: ``fill_`` is an in-stream op. The
        caller owns the guarantee that ``to_tokens`` is not forward of
        the true length -- inside a capture there is no legal way to
        check it, so the check happens once outside (Bugbot-adjacent:
        found live when the S2 timing arm's rewind hit
        cudaErrorStreamCaptureUnsupported through ``.item()``)."""
        self._refuse_alias(seq)
        for layer in range(self.L):
            self._seen[layer][seq] = to_tokens
            # fill_ keeps this async (see append's seq_lens note)
            self.seq_lens[layer].narrow(0, seq, 1).fill_(to_tokens)

    def reference_kv(self, layer: int, seq: int, dtype=torch.bfloat16):
        """ORACLE ONLY (tests/quality): materialize this sequence's K, V
        [T, H, D] by reference dequant. Never on the serving path."""
        from fp8_kv import dequant_kv_fp8_ref, unpack_kv_block_grouped

        t = self._seen[layer][seq]
        ks, vs = [], []
        for blk in range(-(-t // self.bt)):
            row_i = int(self.block_table[layer][seq, blk])
            qk, sk = unpack_kv_block_grouped(
                self.kp.dev[layer, row_i], self.bt, self.Hs[layer],
                self.Ds[layer], self.kgs[layer])
            qv, sv = unpack_kv_block_grouped(
                self.vp.dev[layer, row_i], self.bt, self.Hs[layer],
                self.Ds[layer], 1)
            ks.append(dequant_kv_fp8_ref(qk, sk, dtype=dtype))
            vs.append(dequant_kv_fp8_ref(qv, sv, dtype=dtype))
        if not ks:
            z = torch.zeros(0, self.Hs[layer], self.Ds[layer], dtype=dtype,
                            device=self.device)
            return z, z
        return (torch.cat(ks)[:t], torch.cat(vs)[:t])

    def bytes_per_token(self) -> int:
        """Honest per-token cost across K and V (payload + scale tails),
        as ALLOCATED: every row carries the largest layer's stride."""
        return (self.k_row + self.v_row) // self.bt

    def stats(self) -> dict:
        return {"k_pool": self.kp.stats(), "v_pool": self.vp.stats(),
                "seq_lens": [list(map(int, r)) for r in
                             self.seq_lens.cpu().tolist()]}
