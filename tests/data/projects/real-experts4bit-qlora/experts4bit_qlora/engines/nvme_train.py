"""Training whose frozen experts live on NVMe — the arena as a *training* tier.

:mod:`.nvme_experts` made a baked arena serve inference: expert modules build on
``meta`` and the residency engine reads rows off the device. It refuses to bind
over an ``ExpertsLoRA``, and correctly — that engine replaces the module's
forward outright, which would discard the adapter's delta. So today the two
capabilities are exclusive, and the refusal says so in as many words: *"Load
without `arena=` to train, or drop the adapters to serve."*

That leaves training's ceiling where it has always been. ``offload._ExpertOffload``
streams one layer at a time to the GPU, which bounds **VRAM** beautifully and
does nothing at all for **host RAM**: its homes are the full ``[E, ...]`` packed
stacks, pinned, for every layer at once. Qwen3-30B-A3B in NF4 is ~16 GB of that
and fits anywhere; the models the tier exists for do not.

This module removes that floor without touching the adapter. The frozen base's
home stops being host RAM and becomes the arena:

    disk row  ->  ColdTier pinned slot  ->  [E, ...] device stack  ->  kernel

Nothing about the *training* path changes. ``enable_fast_train`` still patches
the ``ExpertsLoRA`` wrapper, the delta is still added pre-activation, and
:class:`~nf4_qlora.FusedGroupedNf4` still re-reads the staged weights in backward
through its ``weights_fn`` closure — which is precisely the seam that makes this
work: the closure reads *whatever is staged when backward runs*, so an
arena-staged layer is as valid to it as a DRAM-staged one.

**Gradient checkpointing is required**, and it already was. The evict post-hook
fires when a forward returns, so without a recompute to re-stage it, backward
reads 0-element placeholders — true of the host-RAM path too, just never fatal
enough to notice. Here it is guarded: see :meth:`_ArenaExpertOffload.assert_rows_staged`.

**What this does NOT bound: VRAM.** The staged destination keeps the full
``[E, ...]`` shape so every consumer keeps indexing by global expert id — the
kernel's ``expert_ids``, ``ExpertsLoRA``'s adapter stacks, the pool. So one
layer's whole expert stack is resident on the device even though only the routed
rows were read from disk. At 128 experts/layer that is a few hundred MB and it is
what the offload path already did; at K3's 896 experts/layer it is ~15.7 GB, and
fitting that on a small card needs a *compacted* stack (``[R, ...]`` plus an id
remap), which splits the kernel's id space from the adapter's. Deliberately not
done here: it changes the kernel contract, and this change does not.

**MEASURED 2026-08-14 — and it would not help TRAINING anyway.** A compacted
stack only saves memory when a batch routes to far fewer than ``E`` experts.
Counted exactly on DeepSeek-V4-Flash's hash-routed layers (``tid2eid[input_ids]``,
so no forward is needed) over real prose:

| batch   | tokens | distinct experts | compaction saves |
|---------|--------|------------------|------------------|
| 1 x 128 | 128    | 224 / 256        | 12 %             |
| 1 x 256 | 256    | 249 / 256        | 3 %              |
| 2 x 256 | 512    | 255 / 256        | 0 %              |
| 4 x 256 | 1024   | 256 / 256        | 0 %              |
| decode  | 1      | 6 / 256          | **98 %**         |

At top-6 over 256 experts a few hundred tokens touch essentially every expert, so
the ``[E, ...]`` shape costs a training batch nothing extra. This is a DIFFERENT
quantity from the skew informed hot sets exploit: those care which experts are hit
*often*, this cares which are hit *at all*, and heavy frequency-skew still leaves
the tail touched.

Where compaction does pay — decode, 98% — the serving path **already does it**:
``_HotResidency._cold_contrib`` takes ``torch.unique(...)`` and ``index_select``s
only the routed rows, and ``_TieredStack`` never materializes an ``[E, ...]``
tensor at all. So there is no version of this change left worth making. Probe:
``bench/routing/distinct_experts.py``.

Usage::

    from experts4bit_qlora import enable_nvme_train_residency, load_moe_4bit_streaming

    # arena_train=True is REQUIRED and is not a convenience. Without it the arena
    # loader builds bare meta experts (its serving shape) and every module here is
    # refused as "not ExpertsLoRA-wrapped" — this path was unreachable end to end
    # until a GPU run tried the documented usage and could not run it.
    model, cfg = load_moe_4bit_streaming(MODEL, "cuda", torch.bfloat16, r=8, alpha=16,
                                         quant_type="nf4", arena=arena_path,
                                         arena_train=True)
    n = enable_nvme_train_residency(model, arena_path, hot_rows=20_000)
    model.gradient_checkpointing_enable(
        gradient_checkpointing_kwargs={"use_reentrant": False})   # required (either kind)
    enable_fast_train(model)          # after the engine; makes the checkpoint reentrant by default
"""
from __future__ import annotations

import os
from typing import Sequence

import torch

from .offload import _ExpertOffload, enable_expert_offload
from ..util import log

#: Offload tensor name -> the arena segment carrying it. These are the four
#: tensors ``_ExpertOffload`` homes, and an NF4 quantize-at-bake arena
#: (``nvme_bake_nf4``) ships exactly these four segments per expert row.
OFFLOAD_SEGMENTS = {
    "gate_up_proj": "nf4.gate_up_blocks",
    "down_proj": "nf4.down_blocks",
    "gate_up_absmax": "nf4.gate_up_absmax",
    "down_absmax": "nf4.down_absmax",
}

#: The same four tensors, for an arena of NATIVE MXFP4 bytes. Such an arena
#: ships SIX per-projection segments (w1/w3/w2 x blocks+scales) because gate and
#: up are separate tensors on disk. ``mxfp4_residency`` bakes them with both
#: blocks adjacent and both scales adjacent precisely so a reader can span each
#: pair as ONE range, and ``fuse_gate_up_segments`` presents that as the
#: four-segment layout this tier already stages.
MXFP4_OFFLOAD_SEGMENTS = {
    "gate_up_proj": "gate_up_blocks",
    "down_proj": "down_blocks",
    "gate_up_absmax": "gate_up_scales",
    "down_absmax": "down_scales",
}


def arena_offload_view(index):
    """``(index_view, name -> segment suffix)`` for whichever bake this arena is.

    Until now this tier read one shape of arena: the NF4 quantize-at-bake output
    of ``nvme_bake_nf4``. That excluded every natively-MXFP4 checkpoint from
    arena-backed TRAINING — gpt-oss and DeepSeek-V4 could *serve* from their own
    released bytes but had to be re-quantized to NF4 to *train* from disk, which
    costs a second full bake, ~4x per read (measured 34.9 s/request against
    8.7 s on the MXFP4 lane), and the byte identity that made the provenance
    claim worth making in the first place.

    The fix is a view, not a new format. MXFP4 arenas already store their pairs
    contiguously for the serving engine, so the same four staging reads work
    once the segment names resolve. Nothing about the training path changes:
    ``enable_fast_train`` still patches the wrapper, the delta is still added
    pre-activation, and backward still re-reads whatever is staged.

    Detection is by the segments PRESENT, never by a manifest field — a
    ``bake_mode`` string can disagree with the bytes, and that failure is silent
    (right shapes, wrong contents), which is the class of bug this tier's
    geometry checks exist to catch.
    """
    have = {g["suffix"] for g in index.get("segments", ())}
    if set(OFFLOAD_SEGMENTS.values()) <= have:
        return index, OFFLOAD_SEGMENTS
    try:
        from mxfp4_residency import fuse_gate_up_segments
    except ImportError as exc:                       # pragma: no cover
        raise ImportError(
            "this arena carries no NF4 quantize-at-bake segments, and fusing an "
            "MXFP4 one needs `mxfp4_residency.fuse_gate_up_segments` from "
            "grouped-nf4-gemm") from exc
    fused = fuse_gate_up_segments(index)
    segs = fused.get("segments", ())
    if len(segs) == 4:
        # Map BY POSITION, not by name. `fuse_gate_up_segments` names a fused
        # segment by concatenating its sources -- 'w1.weight+w3.weight' on a
        # DeepSeek-V4 arena, 'w1.weight_packed+w3.weight_packed' on a K3 one --
        # so the suffixes are checkpoint-dependent and any hardcoded map is
        # wrong for some real arena. What the fusion DOES guarantee is order:
        # gate_up blocks, gate_up scales, down blocks, down scales. (An earlier
        # version of this function read the docstring's role names as literal
        # suffixes; the CPU spec caught it.)
        order = ("gate_up_proj", "down_proj", "gate_up_absmax", "down_absmax")
        by_pos = {order[0]: segs[0]["suffix"], "gate_up_absmax": segs[1]["suffix"],
                  order[1]: segs[2]["suffix"], "down_absmax": segs[3]["suffix"]}
        return fused, by_pos
    raise ValueError(
        "this arena carries neither the four NF4 segments "
        f"{sorted(OFFLOAD_SEGMENTS.values())} nor an MXFP4 six-segment layout "
        f"fusing to {sorted(MXFP4_OFFLOAD_SEGMENTS.values())}; it has "
        f"{sorted(have)}. Bake with `nvme_bake_nf4` (NF4) or with the MXFP4 "
        "residency kinds (native bytes).")


def _poison_enabled() -> bool:
    """``E4B_ARENA_POISON=1``: fill each staged destination before writing the
    routed rows, so reading an *unrouted* row yields obvious nonsense instead of
    whatever the allocator last left there.

    Off by default because it is a full ``[E, ...]`` memset per stage — real cost
    on the path whose whole point is not touching every expert. Worth turning on
    for a bring-up run: it converts the one failure this design can still have
    (reading a row nothing staged) from plausible numbers into visible ones.
    """
    return os.environ.get("E4B_ARENA_POISON", "") == "1"


def check_arena_geometry(base, index: dict, arena_layer: int, *, names=None) -> dict:
    """Confirm ``index`` describes THIS module's experts. Returns ``{name:
    (shape, dtype)}`` for the offloaded tensors; raises otherwise.

    Deliberately takes an ``index``, not a tier: everything here is answerable
    from the bake's own metadata, so a caller can validate every module BEFORE
    opening a ``ColdTier`` — which is what keeps a refusal from having to unwind
    fds and pinned memory it already allocated.

    The checks, and why each is not covered by the others:

    * **expert count.** The per-expert width below proves each row is the right
      size, not that there are the right NUMBER of them. Two variants of one
      architecture differing only in expert count (a 128- and a 256-expert
      sibling) have identical per-expert geometry. Both directions are bad, and
      one is silent: with MORE experts than the arena, ``row_offset`` KeyErrors —
      but only once a high-numbered expert is routed, which can be many steps
      into a run; with FEWER, every id resolves and expert ``e`` reads another
      model's expert ``e``. Real bytes, right shapes, wrong weights.
    * **layer range.** Same late-and-cryptic failure: an out-of-range layer
      KeyErrors at the first stage of that layer, not at attach.
    * **dtype and per-expert width.** A mismatch means the arena was not baked
      from this model, and it is silent otherwise because the byte counts are
      close enough that the copies would still "work".
    """
    from nvme_residency import segment_geometry

    try:
        from nvme_residency import widening_casts
    except ImportError:
        # gnf4 older than bf16-absmax support. Refusing every mismatch is
        # exactly the old behaviour, and it is the SAFE direction: such a build
        # cannot widen in `segment_into` either, so accepting the geometry here
        # would only move the failure to a staging copy that reinterprets bf16
        # bytes as fp32 without converting them.
        def widening_casts():
            return frozenset()

    names = tuple(names) if names is not None else (
        _ArenaExpertOffload._NAMES_PARAM + _ArenaExpertOffload._NAMES_BUFFER)

    n_arena = int(index["n_experts_per_layer"])
    n_mod = int(getattr(base, "num_experts", -1))
    if n_mod != n_arena:
        raise ValueError(
            f"expert count mismatch: the module has {n_mod} experts per layer "
            f"but the arena carries {n_arena}. This arena was not baked from "
            "this model — attaching would map each expert onto a different "
            "model's row of the same shape.")
    n_layers = int(index["n_layers"])
    if not 0 <= int(arena_layer) < n_layers:
        raise ValueError(
            f"arena layer {arena_layer} is out of range for an arena with "
            f"{n_layers} layers. Pass `layers=` explicitly when the model's "
            "MoE modules are not arena layers 0..N-1.")

    # Resolve NF4-vs-MXFP4 here, from the segments the arena actually has. The
    # geometry checks below then run identically on either bake — which is the
    # point: an MXFP4 arena that does not match this model must fail on the same
    # dtype/width assertions, not slip through a second code path.
    index, segments = arena_offload_view(index)

    out = {}
    for n in names:
        suffix = segments.get(n)
        if suffix is None:
            raise KeyError(
                f"no arena segment is defined for offload tensor {n!r}; "
                f"known: {sorted(segments)}")
        dt, shape, _off, _ln = segment_geometry(index, suffix)
        cur = getattr(base, n)
        per_expert = 1
        for s in shape:
            per_expert *= s
        if cur.dtype != dt and (dt, cur.dtype) not in widening_casts():
            raise TypeError(
                f"{n}: module holds {cur.dtype} but arena segment {suffix!r} "
                f"is {dt} — this arena was not baked from this model")
        if cur.dim() != 2 or cur.shape[1] != per_expert:
            raise ValueError(
                f"{n}: module storage is {tuple(cur.shape)} but arena segment "
                f"{suffix!r} carries {shape} = {per_expert} values per expert. "
                "Expected [num_experts, per_expert]; the arena does not match "
                "this model's expert geometry.")
        # The MODULE's dtype, not the arena's. This feeds `_build_homes`, and a
        # home's dtype becomes the staging destination's dtype — so returning
        # the arena's would allocate a bf16 destination for a bf16 segment,
        # `segment_into` would take its memcpy path instead of converting, and
        # the kernel would be handed bf16 absmax where its contract says fp32.
        # Wrong scales, finite numbers, no error. Where the arena stores a
        # segment narrower than the module holds it is a STORAGE detail, and it
        # belongs to `segment_into`, which converts on the way in.
        out[n] = (cur.shape, cur.dtype)
    return out


class _ArenaExpertOffload(_ExpertOffload):
    """An offload handle whose homes are an NVMe arena instead of pinned DRAM.

    Everything about *residency* is inherited: the single-GPU-resident-layer
    rule, the stage/evict hooks, the backward-recompute eviction subtlety. Only
    the answer to "where do this layer's bytes come from" changes.

    The homes are ``meta`` tensors — shape and dtype, no storage. That is not a
    trick to satisfy the parent class, it is the literal claim: for a model whose
    experts exceed host RAM there is nowhere for an ``[E, ...]`` home to live, and
    saying so with ``meta`` keeps every shape-reading consumer (``_alloc_dest``,
    ``evict``'s placeholder dtypes, the state_dict hook) working off the truth.
    """

    #: Routed staging must run on grad-enabled forwards here — the bulk path
    #: reads every expert row off the device. See ``offload._stage_pre_hook``.
    _routed_in_train = True

    @classmethod
    def _build_homes(cls, base, names, pin: bool, arena: bool):
        """Homes as ``meta`` tensors, shaped from the MODULE and dtyped from the
        ARENA — after :func:`check_arena_geometry` has confirmed the two agree.
        """
        index = base._e4b_cold_tier.reader.index
        shapes = check_arena_geometry(base, index, int(base._e4b_arena_layer),
                                      names=names)
        return {n: torch.empty(shapes[n][0], dtype=shapes[n][1], device="meta")
                for n in names}, None, None

    def __init__(self, base, device, pin: bool = True):
        # Set before super().__init__: it calls evict(), which clears these.
        self._tier = base._e4b_cold_tier
        self._arena_layer = int(base._e4b_arena_layer)
        self._staged_ids: frozenset = frozenset()
        super().__init__(base, device, pin=pin)
        # Routed staging is not an optimisation here, it is the design: a bulk
        # stage means reading the entire layer off the device. The cap is
        # declined outright in `_routed_cap` rather than merely initialised wide
        # — see there for why setting `_routed_max` is not enough.
        self._routed_only = True
        self._routed_max = int(base.num_experts)
        # The homes are meta, so the parent's `all(_is_pinned(...))` is False and
        # would misreport the transfer. The bytes actually cross the link from
        # the TIER's landing buffer, so that is what decides whether the H2D is
        # genuinely async.
        self.pinned = bool(self._tier.pinned)

    def _routed_cap(self) -> int:
        """Decline the crossover. There is no width at which bulk beats routed
        for a disk home, so this returns the full expert count always.

        `_routed_max` alone cannot express that. It is PUBLICLY WRITABLE:
        ``enable_routed_staging(handles)`` and ``enable_speculative_staging(model)``
        both assign ``_routed_max = E * max_fraction`` unconditionally, and the
        latter discovers handles off the model, so it sweeps these up without the
        caller naming them. With the cap lowered, a training batch routing more
        than that fraction falls through to the bulk path — which for this handle
        means re-reading EVERY expert row off NVMe each step, or raising against a
        routed-sized `hot_rows` budget. Both are silent as configuration and
        catastrophic as behaviour.

        The crossover ("one bulk copy beats E strided ones") is a fact about a
        contiguous DRAM home. A disk home issues one aligned read per expert row
        either way, so routed is weakly better at every width and identical at
        full width. (Cursor Bugbot, #117: "Routed max clobber breaks arena train".)
        """
        return int(self.base.num_experts)

    # ------------------------------------------------------------- staging --
    def _copy_rows_into(self, dest, ids) -> int:
        """Read rows ``ids`` off the arena straight into ``dest``.

        Replaces the parent's pinned-home row copy. The destination keeps its
        full ``[E, ...]`` shape and rows land at their global expert index, so
        every consumer downstream is unchanged.
        """
        from nvme_residency import segment_geometry, segment_into

        if getattr(self, "_pool", None) is not None:
            raise RuntimeError(
                "the device-side expert cache (enable_expert_cache) is not wired "
                "to the arena path: its rows are keyed by (layer, expert) but "
                "filled from a pinned host home this handle does not have. "
                "Disable the cache, or use a host-RAM offload handle.")

        ids = [int(e) for e in ids]
        # Same resolution as the attach-time geometry check, from the tier's own
        # index — an MXFP4 arena is fused to the four-segment view here so the
        # staging reads below are byte-for-byte the ones the NF4 path makes.
        index, segments = arena_offload_view(self._tier.reader.index)
        E = int(self.base.num_experts)
        nbytes = 0
        for n in self._param_names + self._buffer_names:
            suffix = segments[n]
            _dt, shape, _off, ln = segment_geometry(index, suffix)
            if _poison_enabled():
                dest[n].fill_(0xA5 if dest[n].dtype == torch.uint8 else float("nan"))
            # dest[n] is [E, per_expert]; segment_into wants [E, *shape_per_expert].
            segment_into(self._tier, index, self._arena_layer, ids, suffix,
                         dest[n].view(E, *shape), rows=ids, non_blocking=True)
            nbytes += ln * len(ids)
        self._staged_ids = frozenset(ids)
        return nbytes

    def _copy_home_to_device(self, policy: str = "sync") -> None:
        """Bulk stage — every expert in the layer, read from the arena.

        Routed staging covers every real training forward, so this is the
        fallback for a call whose routing was not visible to the pre-hook. It is
        deliberately the SAME read path rather than a second one: a whole-layer
        stage is just a routed stage over ``range(E)``, which keeps
        ``_staged_ids`` truthful (and therefore the backward guard sound) with no
        second implementation to drift.
        """
        dest = self._alloc_dest()
        nbytes = self._copy_rows_into(dest, range(int(self.base.num_experts)))
        self._bind(dest)
        self._last_stage_policy = policy
        self._last_stage_nbytes = nbytes

    def evict(self) -> None:
        # A base built by `build_meta_experts` holds META parameters, and the
        # parent evicts by assigning `.data` — which raises "incompatible tensor
        # type" from meta to a real device. Replace the tensor OBJECT once, on
        # the first evict, so the parent's `.data` assignment (and every later
        # stage) has something real to write through. Shapes are already captured
        # in `self.home`, so nothing is lost by dropping them here: an evicted
        # tensor is a 0-element placeholder either way.
        b = self.base
        for n in self._param_names:
            p = b._parameters.get(n)
            if p is not None and p.is_meta:
                b._parameters[n] = torch.nn.Parameter(
                    torch.empty(0, dtype=p.dtype, device=self.device),
                    requires_grad=False)
        for n in self._buffer_names:
            t = b._buffers.get(n)
            if t is not None and t.is_meta:
                b._buffers[n] = torch.empty(0, dtype=t.dtype, device=self.device)
        super().evict()
        # Nothing is staged, so nothing is covered. The guard checks `staged`
        # first and would refuse anyway; clearing keeps the two from ever
        # disagreeing about what this handle is holding.
        self._staged_ids = frozenset()

    # --------------------------------------------------------------- guard --
    def assert_rows_staged(self, expert_ids) -> None:
        """Refuse to read expert rows this handle did not stage.

        Called from ``fast.py``'s ``weights_fn`` closures — that is, **in
        backward**, which is the only place this can go wrong. Routed staging
        fills the routed rows of a full-shaped destination and leaves the rest
        untouched, so a backward that asks for a row the *recompute* did not
        re-stage reads whatever the allocator left there: finite, plausible,
        wrong. Two ways to get there, both real:

        * **No gradient checkpointing.** The evict post-hook fires when the
          forward returns and there is no recompute to re-stage, so backward
          finds placeholders.
        * **A recompute that routed differently.** ``use_reentrant=False``
          restores RNG state by default, so a jitter-noise router reproduces its
          draw; ``preserve_rng_state=False`` does not, and the recompute can pick
          a different top-k.

        Cost is a set membership test per expert group, once per projection.
        """
        if not self.staged:
            raise RuntimeError(
                f"arena layer {self._arena_layer}: expert weights are not staged "
                "at the moment they are being read. Training through the NVMe "
                "tier requires gradient checkpointing — the checkpoint recompute "
                "is what re-stages a layer for its own backward. Enable it "
                "(model.gradient_checkpointing_enable()), or keep the experts in "
                "host RAM with the ordinary offload path.")
        missing = sorted({int(e) for e in expert_ids} - self._staged_ids)
        if missing:
            raise RuntimeError(
                f"arena layer {self._arena_layer}: experts {missing} are being "
                f"read but were not staged (staged {len(self._staged_ids)} rows). "
                "A gradient-checkpoint recompute routed differently than its "
                "forward did — pass preserve_rng_state=True (the default) so a "
                "noisy router reproduces its draw. Reading these rows would "
                "return uninitialized memory, not an error.")

    def tier_stats(self) -> dict:
        return self._tier.stats()


def _engine_conflicts(mods) -> None:
    """Refuse when another residency engine already owns these modules.

    The engines each replace ``forward``; stacking one over another strands the
    inner engine's state and makes ``disable_*`` restore a patched forward, so
    the module stays wrapped forever. Every other engine already refuses the
    rest — this joins that set rather than being the one that does not.
    """
    for ref, name in (("_e4b_hot_ref", "hot residency"),
                      ("_e4b_pipe_ref", "pipelined residency"),
                      ("_e4b_cold_ref", "cold engine"),
                      ("_e4b_mxfp4_ref", "mxfp4 NVMe residency")):
        busy = [i for i, m in enumerate(mods) if hasattr(m, ref)]
        if busy:
            raise RuntimeError(
                f"{len(busy)} of {len(mods)} expert modules already have {name} "
                f"enabled (first at index {busy[0]}). Those engines serve FROZEN "
                "experts and replace the module forward; arena-backed training "
                "keeps the adapter's forward and changes only where the frozen "
                "bytes come from. Disable the engine first.")


def enable_nvme_train_residency(model, arena_path: str, *, hot_rows: int,
                                device: str = "cuda", qd: int | None = None,
                                pinned: bool = True,
                                layers: Sequence[int] | None = None,
                                verbose: bool = False) -> int:
    """Serve every ``ExpertsLoRA``'s frozen base from ``arena_path`` during training.

    Args:
        arena_path: an arena baked by ``grouped-nf4-gemm``'s ``nvme_bake_nf4``
            (the NF4 quantize-at-bake path — it ships the four segments this
            offloads). Its manifest records ``bake_mode``, which is what decides
            the provenance claim: bit-identical to the quantizer's output, not to
            a bf16 release.
        hot_rows: expert rows held in the tier's pinned DRAM. Size from MEASURED
            free RAM (``nvme_residency.capacity_for_bytes``), never a declared
            figure.

            **Hard floor, enforced at attach:** at least ``num_experts``, since a
            stage requests every expert one forward routed and each protects a
            slot from eviction. For a training batch of ``T`` tokens at top-``k``
            the routed set approaches ``min(T*k, num_experts)`` — much larger than
            decode's ``k``. Measured on Qwen3-30B-A3B at seq 384: median 63 unique
            experts per forward, **max 97 of 128**. Sizing to the median is the
            trap, so the floor is ``num_experts`` and undersizing is refused here
            rather than raising inside ``ColdTier.ensure`` many steps into a run.

            Above the floor it is a **RAM-for-disk dial**, measured on Qwen3-30B:
            ``128`` rows costs ~4 GB pinned and reads 14.4 GB/step; ``3216`` costs
            ~12 GB and reads 2.65 GB/step — 3.2x the RAM for 5.4x fewer bytes.
        qd: in-flight NVMe reads. ``None`` (default) lets ``grouped-nf4-gemm``
            size it from the host's CPU budget, which is what its measurements
            support; a fixed value here would override that on every host.
        layers: arena layer index per MoE module, defaulting to ``0..N-1``. Pass
            explicitly when the model's MoE modules are not arena layers in order.

    Returns the number of modules moved onto the arena.

    Composes with ``enable_fast_train`` in either order, and requires gradient
    checkpointing — see :meth:`_ArenaExpertOffload.assert_rows_staged`.
    Use it for training when the frozen NF4 experts do not fit host RAM. Refuses
    ``hot_rows`` below the expert count at attach time and requires gradient checkpointing;
    refuses (``EpilogueContractError``, in the pre-flight, before the tier opens) any module
    whose expert forward the wrapper cannot represent -- per-expert biases, a clamp or GLU
    scalar no ``_apply_gate`` hook consumes, an interleaved layout (gpt-oss; see
    :func:`experts4bit_qlora.assert_stock_epilogue`). Returns the number of ``ExpertsLoRA``
    modules attached (assert > 0). Needs ``[fast]``, a CUDA device, local NVMe. See
    ``docs/solutions/offload-moe-experts-to-cpu-or-nvme.md``.
    """
    # Named by SYMBOL, not by version number: the staging entry point ships with
    # this feature, so any version assertion here would be a forward reference to
    # a release that may not have been cut yet — and a wrong one is worse than
    # none, since it sends people to upgrade past a version that has it.
    # Reads the fp32 expert absmax: a double-quantized one (E4B_ABSMAX_DQ=1) is refused by name.
    from ..absmax_dq import refuse_compressed_absmax
    refuse_compressed_absmax(model, "enable_nvme_train_residency")
    try:
        from nvme_residency import ColdTier
    except ImportError as exc:                       # pragma: no cover
        raise ImportError(
            "arena-backed training needs grouped-nf4-gemm's N-series modules "
            "(nvme_residency/nvme_reader/nvme_arena) on the import path") from exc
    try:
        from nvme_residency import segment_into  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            "the installed grouped-nf4-gemm has no `nvme_residency.segment_into`; "
            "arena staging needs it to fill a caller-owned destination, and the "
            "serving-side `segment_tensor` cannot substitute (it allocates its "
            "own result). Upgrade grouped-nf4-gemm to a build that exports it."
        ) from exc

    from .hot_residency import target_modules
    from ..lora import EpilogueContractError, ExpertsLoRA, assert_stock_epilogue

    mods = target_modules(model)
    if not mods:
        raise RuntimeError(
            "no MoE expert modules found under this model — nothing to move onto "
            "the arena")

    # The training target is the WRAPPER, not the base: its forward is what runs,
    # and the stage/evict hooks have to sit where the gradient-checkpoint
    # recompute will re-enter. Index off the shared `target_modules` list so
    # `layers[i]` means the same `i` here as everywhere else in the package.
    wrapper_of = {id(m.base): m for m in model.modules()
                  if isinstance(m, ExpertsLoRA) and hasattr(m, "base")}
    bare = [i for i, m in enumerate(mods) if id(m) not in wrapper_of]
    if bare:
        raise RuntimeError(
            f"{len(bare)} of {len(mods)} expert modules are not ExpertsLoRA-wrapped "
            f"(first at index {bare[0]}). This path exists to train an adapter over "
            "arena-resident frozen experts; with no adapter there is nothing to "
            "train, and `enable_nvme_residency` is the serving equivalent.")

    _engine_conflicts(mods)

    # Refuse a SECOND enable before opening anything. `enable_expert_offload` is
    # idempotent and returns the handle built by the first call — whose `_tier`
    # was captured then. So a naive re-enable would construct a fresh ColdTier
    # (fds + pinned DRAM), stamp it on the bases, get the OLD handle back, and
    # leave the new tier orphaned with nothing to close it, while staging kept
    # reading the old one. The visible symptom is worse than the leak: retuning
    # `hot_rows` or pointing at a different `arena_path` would appear to work and
    # change nothing.
    #
    # Checked BEFORE the ColdTier is constructed, so the refusal path allocates
    # nothing it would then have to clean up.
    already = [i for i, m in enumerate(mods) if hasattr(m, "_e4b_arena_offload")]
    if already:
        raise RuntimeError(
            f"{len(already)} of {len(mods)} expert modules already have arena-backed "
            f"training residency (first at index {already[0]}). Re-enabling cannot "
            "retune `hot_rows` or swap `arena_path`: the offload handles are "
            "idempotent and keep the tier they were built with, so a second call "
            "would silently change nothing and leak a second pinned tier. Build the "
            "model fresh with the settings you want.")

    lay = list(layers) if layers is not None else list(range(len(mods)))
    if len(lay) < len(mods):
        raise ValueError(
            f"layers has {len(lay)} entries for {len(mods)} MoE modules — one per "
            "module in dispatch order is required, so a layer's rows are never "
            "silently read from its neighbour's arena row")

    # PRE-FLIGHT: validate EVERY module against the arena index before opening
    # anything. The index is readable on its own — no fds, no pinned buffer — so
    # every refusal below costs nothing and unwinds nothing.
    #
    # This is not just tidiness. Validating inside the attach loop means a module
    # partway down the list can raise after earlier ones are already hooked and
    # stamped, and then there is no good move left: closing the tier strands the
    # modules already using it, and not closing it leaks. The realistic triggers
    # are exactly the checks here — an out-of-range `layers` entry, a mismatched
    # arena, a later wrapper that already carries a host-RAM `_offload`.
    # (Cursor Bugbot, #117: "Partial attach closes live tier".)
    from nvme_arena import load_index

    index = load_index(arena_path)
    from ..merged_arena import refuse_merged
    refuse_merged(index, arena_path)          # a merged arena is never read as a base (bench/d0/ARENA-DESIGN.md)

    # The documented hard floor, ENFORCED. One `ensure` requests every expert a
    # forward routed, and each protects a slot from eviction, so a request wider
    # than the tier raises inside `ColdTier.ensure` — correct, but minutes into a
    # run, after the checkpoint has loaded and the arena is open. `num_experts`
    # is the worst case that request can reach and is known right here, for free.
    #
    # Measured on Qwen3-30B-A3B (128 experts, seq 384, top-8): a single forward
    # routed a MEDIAN of 63 unique experts and a MAX of 97. Sizing to the median
    # is the trap — one unlucky forward ends the run — which is why the floor is
    # `num_experts` and not anything observed.
    floor = max(int(getattr(b, "num_experts", 0)) for b in mods)
    if hot_rows < floor:
        raise ValueError(
            f"hot_rows={hot_rows} is below the hard floor of {floor} (the widest "
            f"`num_experts` among {len(mods)} MoE modules). One forward can route "
            f"every expert in a layer, and a stage requests them together, so this "
            f"raises inside ColdTier.ensure the first time a forward is unlucky — "
            f"possibly many steps in. At {index['row_stride'] / 1e6:.1f} MB/row the "
            f"floor costs {floor * index['row_stride'] / 1e9:.1f} GB pinned; size "
            f"ABOVE it from measured free RAM via "
            f"`nvme_residency.capacity_for_bytes`, and raise it further to trade "
            f"host RAM for disk traffic.")

    for i, base in enumerate(mods):
        check_arena_geometry(base, index, lay[i])
        # The wrapper's forward is what trains here, and it is only faithful for the
        # stock epilogue (or one the base hands over via `_apply_gate`). The
        # constructor already refuses anything else, but a wrapper can be reached
        # without it (a base swapped in after construction), and this attach is the
        # last seam before a run -- so the contract is asserted per module, in the
        # pre-flight, where a refusal opens nothing (#397).
        try:
            assert_stock_epilogue(base)
        except EpilogueContractError as exc:
            raise EpilogueContractError(
                f"module {i}: arena-backed training would optimise an adapter against "
                f"an unfaithful expert forward -- {exc}") from exc
        existing = getattr(wrapper_of[id(base)], "_offload", None)
        if existing is not None:
            raise RuntimeError(
                f"module {i} already carries a host-RAM offload handle "
                f"({type(existing).__name__}). `enable_expert_offload` is idempotent "
                "and returns the existing handle, so the arena one would never be "
                "installed — enable arena residency before offloading, not after.")

    # OMIT qd rather than forwarding None. On grouped-nf4-gemm >= the
    # CPU-scaled default, ColdTier's own default is the right answer; on an
    # older one (the floor is 0.10.0, which predates it) `qd=None` would reach
    # `ThreadPoolExecutor(max_workers=None)` and silently open up to 32 reader
    # threads instead of 4. Not passing the key gets each version's own default.
    tier = ColdTier(arena_path, hot_rows=hot_rows, pinned=pinned,
                    **({} if qd is None else {"qd": qd}))
    idx = tier.reader.index
    log(f"  nvme TRAIN residency: arena {arena_path} rows={idx['n_layers']}x"
        f"{idx['n_experts_per_layer']} row_stride={idx['row_stride']} "
        f"hot_rows={hot_rows} ({hot_rows * idx['row_stride'] / 1e9:.1f} GB pinned)")

    n = 0
    try:
        for i, base in enumerate(mods):
            # Stamp BEFORE construction: _build_homes runs inside __init__ and
            # reads both of these off the base.
            base._e4b_cold_tier = tier
            base._e4b_arena_layer = lay[i]
            wrapper = wrapper_of[id(base)]
            handle = enable_expert_offload(wrapper, device, pin=False,
                                           handle_cls=_ArenaExpertOffload)
            # fast.py's weights_fn closures call this at BACKWARD time.
            base._e4b_stage_guard = handle.assert_rows_staged
            base._e4b_arena_offload = handle
            n += 1
    except BaseException as exc:
        # Close the tier ONLY if nothing is using it. Past the first successful
        # attach, earlier modules hold this tier and closing it would hand them a
        # shut-down reader — a worse failure than leaking, and one the re-enable
        # guard would then block them from recovering from. Leak it, and say so:
        # the model is unusable either way and has to be rebuilt.
        if n == 0:
            tier.close()
            raise
        # Past that point the tier stays open for BOTH exits below. What differs
        # is how much the caller is told, and neither may cost them the cause:
        #
        # * KeyboardInterrupt / SystemExit are control flow, not attach failures.
        #   Re-raised untouched — turning a Ctrl-C into a RuntimeError makes the
        #   interpreter refuse to exit and reads as a bug in this function.
        # * Anything else is chained with `from exc`, never `from None`. The
        #   partial-attach state is a NOTE about cleanup, not a diagnosis; the
        #   real failure (an OOM, a bad handle class, a driver error) is what the
        #   caller actually needs, and suppressing it leaves them with a message
        #   about tier lifetime and no idea what went wrong.
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        raise RuntimeError(
            f"arena attach failed after {n} of {len(mods)} modules were already "
            f"hooked. Those modules hold this tier, so it is left OPEN rather than "
            "closed under them — the model is in a partially-attached state and "
            "must be discarded, not re-enabled. The tier is released when the "
            "model is. The failure that caused this is chained below."
        ) from exc

    log(f"  nvme TRAIN residency active on {n} module(s); "
        f"gradient checkpointing is REQUIRED (backward re-reads staged rows)")
    if verbose:
        print(f"[e4b.nvme_train] {n} module(s) on arena {arena_path}")
    return n


def arena_train_stats(model) -> dict | None:
    """Tier counters for an arena-backed training run, or ``None`` if not enabled.

    Reports the SHARED tier once (every module reads the same one) plus how many
    modules are attached — a per-module sum would multiply-count the same reads.
    """
    handles = [m._e4b_arena_offload for m in model.modules()
               if hasattr(m, "_e4b_arena_offload")]
    if not handles:
        return None
    s = dict(handles[0].tier_stats())
    s["modules"] = len(handles)
    s["last_stage_rows"] = [len(h._staged_ids) for h in handles]
    return s
