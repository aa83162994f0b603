"""The QLoRA training recipe as one typed setup, its memory cost before loading, and the call that builds it.

Three things that used to live apart, which is how an estimate and a run drift:

* :class:`QLoRASetup` names every mechanism choice the recipe makes -- storage scheme, adapters, where the
  frozen experts live, which expert kernel trains, how many MoE layers keep their activations. The same
  choices were env vars read at import (``train.py``), keyword arguments spread over five calls (the
  documented fast path), or both.
* :func:`estimate_qlora_footprint` prices that setup for a :class:`~experts4bit_qlora.arch.topology.MoETopology`
  without loading a weight. Each line is a :class:`FootprintItem` that says what it is and how it was obtained:
  ``derived`` (sized by constructing this package's own storage and adapter modules on ``meta`` -- the same
  classes the load builds, so the arithmetic cannot drift from them) or ``heuristic`` (a stated formula,
  never presented as a measurement). What it does not model is listed in :attr:`Footprint.unmodelled`.
* :func:`prepare_qlora_training` builds exactly that setup: the documented fast path
  (``docs/solutions/qlora-fused-moe-experts.md``) as one call that asserts every accelerated path engaged.

The training LOOP stays the caller's: ``train.py`` keeps its own, benchmark harnesses theirs.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

import torch

#: Bytes per logit live at a training step's loss (three fp32 logits-sized tensors), whole or chunked: one value, defined and
#: measured in :mod:`~experts4bit_qlora.engines.chunked_lm_loss`.
from .engines.chunked_lm_loss import LOGITS_LOSS_BYTES  # noqa: E402
#: storage width per scheme, mirroring ``_vendor.experts._SCHEME_BITS`` without importing a private table
_ADAPTER_BYTES = {"bf16": 2, "fp32": 4}
_DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32}
EXPERT_RESIDENCIES = ("device", "host")
EXPERT_KERNELS = ("grouped_nf4", "reference")


@dataclass(frozen=True)
class QLoRASetup:
    """Every mechanism choice the recipe makes. Defaults are the documented fast path on one GPU."""

    quant_type: str = "nf4"
    blocksize: int = 64
    r: int = 8
    alpha: int = 16
    #: dtype of every LoRA adapter, expert and attention ("bf16" is ``train.py``'s; TC1 trains "fp32")
    adapter_dtype: str = "bf16"
    #: dtype of the attention adapters when it differs from ``adapter_dtype``; None (the default) means ``adapter_dtype``.
    #: TC1's "native" arm is ``adapter_dtype="bf16", attention_adapter_dtype="fp32"``: bf16 expert adapters, fp32 attention.
    attention_adapter_dtype: str | None = None
    train_experts: bool = True
    train_attention: bool = True
    #: frozen attention q/k/v/o stored in bitsandbytes NF4 (``TRAIN_ATTN_4BIT``)
    attn_4bit: bool = False
    #: "device": every frozen expert stack resident on the GPU. "host": stacks live in (pinned) host RAM and
    #: stream to the GPU one layer at a time (``OFFLOAD_EXPERTS``; :mod:`~experts4bit_qlora.engines.offload`).
    expert_residency: str = "device"
    pin: bool = True
    #: "grouped_nf4": grouped-nf4-gemm's fused grouped kernel (:func:`~experts4bit_qlora.enable_fast_train`).
    #: "reference": the per-expert bitsandbytes loop -- what ``python -m experts4bit_qlora.train`` runs.
    expert_kernel: str = "grouped_nf4"
    #: route the backward through the single-launch dgrad kernel (``enable_fast_train(dgrad=True)``)
    dgrad: bool = True
    #: MoE layers (counted from the last) whose activations are kept instead of recomputed in backward
    #: (:func:`~experts4bit_qlora.engines.moe_keep.keep_moe_activations`); 0 recomputes every layer
    keep_moe_layers: int = 0

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class FootprintItem:
    name: str
    #: "device" or "host" (memory held), or "link" (bytes moved host to device per micro-batch)
    where: str
    bytes: int
    #: "derived" (constructed from this package's own modules / exact arithmetic) or "heuristic" (a stated formula)
    basis: str
    detail: str = ""


@dataclass(frozen=True)
class Footprint:
    """An itemized memory estimate. Totals are sums of items; nothing outside :attr:`items` is counted."""

    items: tuple
    #: what this estimate leaves out, in words (each one a reason the real peak can be higher)
    unmodelled: tuple = ()
    #: setup choices this topology cannot take, in words; empty when the setup is valid for it
    refusals: tuple = ()

    def total(self, where: str, basis: str | None = None) -> int:
        return sum(i.bytes for i in self.items if i.where == where and (basis is None or i.basis == basis))

    @property
    def device_bytes(self) -> int:
        return self.total("device")

    @property
    def host_bytes(self) -> int:
        return self.total("host")

    def to_dict(self) -> dict:
        return {"items": [asdict(i) for i in self.items], "unmodelled": list(self.unmodelled),
                "refusals": list(self.refusals), "device_bytes": self.device_bytes, "host_bytes": self.host_bytes}


def setup_refusals(topology, setup: QLoRASetup) -> tuple:
    """Why ``setup`` cannot run on ``topology``, in words; ``()`` when it can. Decided from structure only."""
    out = []
    if topology.loader_refusal:
        out.append(f"the loader refuses this model: {topology.loader_refusal}")
        return tuple(out)
    if not topology.expert_stacks:
        out.append("no fused expert stack at the loader's expert path: nothing for this recipe to quantize")
    if setup.expert_residency not in EXPERT_RESIDENCIES:
        out.append(f"expert_residency must be one of {EXPERT_RESIDENCIES}, got {setup.expert_residency!r}")
    if setup.expert_kernel not in EXPERT_KERNELS:
        out.append(f"expert_kernel must be one of {EXPERT_KERNELS}, got {setup.expert_kernel!r}")
    if setup.adapter_dtype not in _ADAPTER_BYTES:
        out.append(f"adapter_dtype must be one of {tuple(_ADAPTER_BYTES)}, got {setup.adapter_dtype!r}")
    if setup.attention_adapter_dtype is not None and setup.attention_adapter_dtype not in _ADAPTER_BYTES:
        out.append(f"attention_adapter_dtype must be None or one of {tuple(_ADAPTER_BYTES)}, "
                   f"got {setup.attention_adapter_dtype!r}")
    if setup.train_experts and topology.expert_bias_tensors:
        out.append(f"train_experts: the expert stacks carry {list(topology.expert_bias_tensors)}; the loader "
                   "builds them bare (ExpertsLoRA applies such biases only on its unfused reference loop, "
                   "behind E4B_GPTOSS_EXPERT_LORA=1, which this recipe does not plan)")
    if setup.expert_kernel == "grouped_nf4" and setup.quant_type != "nf4":
        out.append(f"expert_kernel='grouped_nf4' reads NF4 stacks only; quant_type is {setup.quant_type!r}")
    if setup.expert_kernel == "grouped_nf4" and not setup.train_experts:
        out.append("expert_kernel='grouped_nf4' patches the ExpertsLoRA wrappers; with train_experts=False "
                   "there is nothing for it to train through")
    if setup.train_attention or setup.attn_4bit:
        what = [n for n, on in (("train_attention", setup.train_attention), ("attn_4bit", setup.attn_4bit)) if on]
        if topology.attention is None:
            out.append(f"{'/'.join(what)}: this model's attention could not be described "
                       f"({topology.provenance.get('attention', 'detector refused it')}); add_attention_lora would refuse it too")
        elif topology.attention.count == 0:
            out.append(f"{'/'.join(what)}: no attention projection the adapter can wrap (q_proj/k_proj/o_proj as "
                       "linears); the setup would train or store nothing there")
    if setup.attn_4bit and topology.attention is not None and topology.attention.any_bias:
        out.append("attn_4bit: an attention projection carries a bias; the NF4 attention store is weight-only")
    if setup.keep_moe_layers and setup.expert_kernel != "grouped_nf4":
        out.append("keep_moe_layers applies through the fused training path only (enable_fast_train)")
    if not (setup.train_experts or setup.train_attention):
        out.append("nothing trains: train_experts and train_attention are both off")
    return tuple(out)


def _module_bytes(mod) -> int:
    return sum(t.numel() * t.element_size() for t in list(mod.parameters()) + list(mod.buffers()) if t is not None)


def _stack_modules(stack, setup):
    """The base and adapter modules the loader builds for one stack, on meta (shapes only, no allocation)."""
    from . import Experts4bit, ExpertsNbit
    from .lora import ExpertsLoRA

    cls = Experts4bit if setup.quant_type in ("nf4", "fp4") else ExpertsNbit
    base = cls(stack.n_experts, stack.hidden, stack.intermediate, has_gate=stack.first_name == "gate_up_proj",
               quant_type=setup.quant_type, blocksize=setup.blocksize, device="meta")
    lora = ExpertsLoRA(base, r=setup.r, alpha=setup.alpha, dtype=_DTYPES.get(setup.adapter_dtype, torch.bfloat16))
    return base, lora


def _first_out(stack) -> int:
    """Per-expert output width of the first projection (2I gated, I not), whatever the stack's orientation."""
    n = 1
    for d in stack.first_shape:
        n *= d
    return n // (stack.n_experts * stack.hidden)


# --- grouped_nf4 training: the MoE layer backward's working set (experts4bit-qlora#1526) ---------------------------------
# With grouped-nf4-gemm the training peak sits in one MoE layer's backward: the kernel's padded LoRA delta, its fused
# workspaces and that layer's recomputed tensors are live together on top of the saved layer inputs. The routing that sizes
# the padded delta is data-dependent, so it is priced as a BOUND in shape. grouped-nf4-gemm's rules are mirrored here from
# kernel/nf4_qlora.py; tests/test_grouped_nf4_backward_estimate.py pins them against the installed package.

#: ``_PAD_BYTES_LIMIT``: the ``auto`` route takes the per-expert loop (nothing padded) when the padded block,
#: ``G x widest x (K + N)`` at the activations' itemsize, would exceed this
GNF4_PAD_BYTES_LIMIT = 2 * 2 ** 30
#: ``_PAD_BUCKETS_AUTO_MIN_ROWS``: a call with at least this many routed rows (T x top_k) pads by buckets (0.42.0+)
GNF4_PAD_BUCKETS_MIN_ROWS = 16384
#: ``_PAD_BUCKET_RATIO``: within a bucket the widest group has at most this many times the narrowest's rows, so the
#: buckets hold at most this many times the routed rows
GNF4_PAD_BUCKET_RATIO = 2
#: ``T x top_k x first_out`` bf16 buffers live at the grouped kernel's backward peak (fused_experts_train_forward,
#: fused_grouped_lora, gemm_4bit_grouped, _scaled and nf4_qlora's forward; OLMoE on an RTX A2000)
GNF4_FUSED_WORKSPACES = 5


def _ladder_up(n: int) -> int:
    """grouped-nf4-gemm's ``_ladder_up``: the smallest rung >= ``n``, every integer up to 4 and then four rungs per
    octave (``{4, 5, 6, 7} x 2**k``), so a rung is under 1.25 x ``n``."""
    n = int(n)
    if n <= 4:
        return max(n, 0)
    step = 1 << (n.bit_length() - 3)
    return -(-n // step) * step


def grouped_nf4_padded_rows_bound(*, n_experts: int, top_k: int, tokens: int, hidden: int, first_out: int,
                                  intermediate: int, adapter_dtype: str) -> tuple:
    """``(rows, how)``: an upper bound on grouped-nf4-gemm's padded LoRA delta rows in one MoE layer pass of ``tokens``.

    The single padded block is ``G x widest`` rows: ``G`` routed-to experts, at most ``min(E, T x top_k)``, each padded to
    the hottest one's rows, at most ``T`` (an expert sees a token once). Then:

    * the ``auto`` route pads only while ``G x widest x (K + N) x 2`` stays under ``GNF4_PAD_BYTES_LIMIT``; the smaller
      ``K + N`` of the two projections (gate_up: H + first_out; down: I + H) gives the widest cap any padded call has;
    * fp32 adapters take the single-block ladder (grouped-nf4-gemm 0.44.0+): ``G`` and ``widest`` each rounded up to a
      rung, at most 1.5625 x the single block;
    * a call with at least ``GNF4_PAD_BUCKETS_MIN_ROWS`` routed rows pads by buckets instead, at most
      ``GNF4_PAD_BUCKET_RATIO x T x top_k`` rows.
    """
    routed = tokens * top_k
    if routed >= GNF4_PAD_BUCKETS_MIN_ROWS:
        return (GNF4_PAD_BUCKET_RATIO * routed,
                f"bucketed (T x top_k = {routed} >= {GNF4_PAD_BUCKETS_MIN_ROWS}): at most {GNF4_PAD_BUCKET_RATIO} x T x top_k")
    g, w = min(n_experts, routed), tokens
    cap = GNF4_PAD_BYTES_LIMIT // (min(hidden + first_out, intermediate + hidden) * 2)
    single = min(g * w, cap)
    how = f"single block: min(E, T x top_k) x T = {g} x {w}" + (f", capped at {cap} by the pad route" if cap < g * w else "")
    if adapter_dtype == "fp32":
        rows = min(_ladder_up(g) * _ladder_up(w), -(-single * 25 // 16))
        return rows, how + f", on the fp32 single-block ladder: {rows}"
    return single, how


def _grouped_nf4_backward(topology, setup, tokens: int, layer: int) -> tuple:
    """``(bytes, how)`` of the grouped kernel's MoE-backward branch above the saved layer inputs: the padded LoRA delta
    (bound), the fused workspaces and one layer's recompute set, for the stack that makes it largest. ``(0, None)`` when
    the setup does not train experts through the grouped kernel."""
    k = topology.top_k or 0
    if setup.expert_kernel != "grouped_nf4" or not setup.train_experts or not k or not topology.expert_stacks:
        return 0, None
    ab = _ADAPTER_BYTES[setup.adapter_dtype]
    best = None
    for st in topology.expert_stacks:
        first_out = _first_out(st)
        rows, how = grouped_nf4_padded_rows_bound(n_experts=st.n_experts, top_k=k, tokens=tokens, hidden=st.hidden,
                                                  first_out=first_out, intermediate=st.intermediate,
                                                  adapter_dtype=setup.adapter_dtype)
        padded = rows * (st.hidden + first_out + st.intermediate) * ab
        ws = GNF4_FUSED_WORKSPACES * tokens * k * first_out * 2
        if best is None or padded + ws > best[0] + best[1]:
            best = (padded, ws, rows, how, st, first_out)
    padded, ws, rows, how, st, first_out = best
    return padded + ws + layer, (f"the grouped_nf4 MoE backward = padded LoRA delta {padded / 1e9:.2f} GB ({rows} rows x "
                                 f"(H + first_out + I = {st.hidden} + {first_out} + {st.intermediate}) x {ab} B; {how}) + "
                                 f"fused workspaces {ws / 1e9:.2f} GB ({GNF4_FUSED_WORKSPACES} x T x top_k x first_out bf16) + "
                                 f"one layer's recompute {layer / 1e9:.2f} GB")


def _absmax_dq_in_force(setup: QLoRASetup) -> bool:
    """Whether the run stores the expert absmax double-quantized (``absmax_dq.compress_expert_absmax_``): the
    ``enable_fast_train`` default (``engines.fast.absmax_dq_policy``, unset ``E4B_ABSMAX_DQ``), which compresses only
    resident ExpertsLoRA-wrapped NF4/FP4 stacks at blocksize 64 (``absmax_dq._why_not``). Expert offload keeps the fp32
    absmax by name, and the reference loop never calls ``enable_fast_train``, so both stay at fp32 here."""
    if setup.expert_kernel != "grouped_nf4" or setup.expert_residency != "device" or setup.quant_type not in ("nf4", "fp4"):
        return False
    if setup.blocksize != 64:
        return False
    from .engines.fast import absmax_dq_policy

    return absmax_dq_policy(None)[0]


def _compressed_absmax_bytes(n: int) -> int:
    """Bytes ``absmax_dq._compress_one`` stores for one projection's ``n`` fp32 absmax values: ``_q`` uint8 [n],
    ``_s`` fp32 one per 256 (bitsandbytes ``quantize_blockwise(blocksize=256)``), ``_off`` fp32 [1], ``_code`` fp32 [256]
    (bitsandbytes' dynamic map). Pinned against real stacks in tests/test_estimate_absmax_and_family.py."""
    from .absmax_dq import NESTED_BLOCKSIZE

    return n + 4 * (-(-n // NESTED_BLOCKSIZE)) + 4 + 4 * 256


def _stack_device_bytes(base, setup: QLoRASetup) -> int:
    """One stack's device bytes as the run stores them: packed weights + absmax, the absmax compressed where
    :func:`_absmax_dq_in_force` says the run compresses it."""
    total = _module_bytes(base)
    if not _absmax_dq_in_force(setup):
        return total
    for which in ("gate_up", "down"):
        t = getattr(base, f"{which}_absmax", None)
        if isinstance(t, torch.Tensor):
            total += _compressed_absmax_bytes(t.numel()) - t.numel() * t.element_size()
    return total


def _pinned_cost(n: int) -> int:
    """PyTorch's caching host allocator rounds each pinned request up to a power of two (grouped-nf4-gemm#71)."""
    return 1 << (int(n) - 1).bit_length() if n > 0 else 0


#: optimizer -> (bytes of state per trainable parameter as a function of the adapter's bytes, how it is known)
OPTIMIZERS = {
    "adamw": (lambda ab: 2 * ab, "exp_avg + exp_avg_sq per trainable parameter, in its dtype (torch.optim.AdamW)"),
    # bitsandbytes AdamW8bit: two uint8 states plus an fp32 absmax per 256-element block each (blockwise 8-bit);
    # tensors under min_8bit_size (4096) keep 32-bit state, which no LoRA tensor here is
    "adamw_8bit": (lambda ab: 2 + 8 / 256, "two uint8 states + an fp32 absmax per 256 values each "
                                            "(bitsandbytes.optim.AdamW8bit)"),
}


def _attention_adapter_dtype(setup: QLoRASetup) -> str:
    return setup.attention_adapter_dtype or setup.adapter_dtype


#: Bytes per logit live at a stock held-out evaluation's loss: Hugging Face's ``ForCausalLMLoss`` under ``torch.no_grad`` holds
#: the bf16 logits (2), their fp32 upcast (4) and the log-softmax of that copy (4). Measured: TC1's tc1-5090-112 census at its
#: ``s20.eval`` peak (Qwen3-30B-A3B, one packed 4,096-token row, V = 151,936): 1.159 + 2 x 2.318 GiB.
EVAL_STOCK_BYTES_PER_LOGIT = 10
#: Bytes per (token, hidden unit) of the hidden-state-sized tensors live at that peak: the final norm's input and output and
#: the head's input (4 + 4 + 2; the same census: 0.031 + 0.031 + 0.016 GiB at T = 4,096, H = 2,048).
EVAL_HIDDEN_BYTES = 10
#: Bytes per chunk logit of the chunked held-out loss (``chunked_lm_loss_from_logits``): one chunk's fp32 upcast and its
#: log-softmax, the full bf16 logits being counted separately. TC1 amendment 60 read the evaluation peak 26.88 -> 22.50 GB on
#: Qwen3-30B-A3B's packed rows; stock minus chunked at these coefficients is 4.36 GB.
EVAL_CHUNK_BYTES_PER_LOGIT = 8
#: Allocations under 1 MiB live at a training or evaluation peak -- kernel scratch, lookup tables, index and staging buffers --
#: which no item prices one by one. Measured: 0.38 MB (9 allocations) and 2.0 MB (11) at the two TC1 census peaks
#: (tc1-5090-112, -114); the receipts round their peaks to 0.5 MB. Named so the estimate does not rest on rounding.
SMALL_ALLOCATIONS_BYTES = 4 << 20


def _eval_loss_bytes(topology, setup: QLoRASetup, tokens: int, vocab: int, hidden: int) -> tuple:
    """``(bytes, how)`` of a held-out evaluation's loss for one ``tokens``-token micro-batch, as the run computes it: chunked
    from the logits when ``enable_fast_train`` patched the model (``grouped_nf4``, a supported architecture, the training switch
    not ``0``), ``E4B_CHUNKED_EVAL_LOSS`` is on and the stock fp32 logits reach the eval gate; otherwise stock."""
    hid = tokens * hidden * EVAL_HIDDEN_BYTES
    stock = tokens * vocab * EVAL_STOCK_BYTES_PER_LOGIT + hid
    stock_how = f"the stock loss, bf16 logits + their fp32 upcast + its log-softmax = {stock / 1e9:.2f} GB"
    if setup.expert_kernel != "grouped_nf4" or _loss_family(topology) is None:
        return stock, stock_how
    if _head_refusal(topology):
        return stock, stock_how + f" ({_head_refusal(topology)}: the model is not patched)"
    from .engines.chunked_lm_loss import EVAL_MIN_LOGITS_BYTES, chunked_eval_loss_requested, chunked_lm_loss_requested

    chunk = chunked_lm_loss_requested()
    if chunk is None:
        return stock, stock_how + " (E4B_CHUNKED_LM_LOSS=0: the model is not patched)"
    if not chunked_eval_loss_requested():
        return stock, stock_how + " (E4B_CHUNKED_EVAL_LOSS=0)"
    if tokens * vocab * 4 < EVAL_MIN_LOGITS_BYTES:
        return stock, stock_how + " (under the eval gate)"
    b = tokens * vocab * 2 + min(tokens, chunk) * vocab * EVAL_CHUNK_BYTES_PER_LOGIT + hid
    return b, f"the chunked loss: bf16 logits + {chunk}-token fp32 chunks = {b / 1e9:.2f} GB"


def estimate_env() -> dict:
    """The environment switches :func:`estimate_qlora_footprint` reads, keyed by name, each valued as the engine that reads
    it interprets it in this process: today ``E4B_CHUNKED_LM_LOSS``, as ``{"chunk": <tokens or None>, "auto_gate_bytes":
    <bytes or None>}`` from :mod:`~experts4bit_qlora.engines.chunked_lm_loss`'s own ``chunked_lm_loss_requested`` and
    ``chunked_lm_loss_min_bytes``. Unset, empty and ``auto`` therefore report the same value, as they behave the same.

    When to use it: a planner that prices in one process and runs in another records this beside the plan and compares it
    before the run, since the run builds what its own process's switches say. The names and the interpretation come from
    the modules that read them, so neither is kept twice."""
    from .engines.chunked_lm_loss import _ENV as chunked_loss_switch
    from .engines.chunked_lm_loss import _EVAL_ENV as chunked_eval_switch
    from .engines.chunked_lm_loss import chunked_eval_loss_requested, chunked_lm_loss_min_bytes, chunked_lm_loss_requested
    from .engines.train_qkv_fuse import train_fuse_qkv_requested

    from .engines.fast import absmax_dq_policy

    return {chunked_loss_switch: {"chunk": chunked_lm_loss_requested(), "auto_gate_bytes": chunked_lm_loss_min_bytes()},
            "E4B_TRAIN_FUSE_QKV": train_fuse_qkv_requested(),
            "E4B_ABSMAX_DQ": absmax_dq_policy(None)[0],
            chunked_eval_switch: chunked_eval_loss_requested()}


def _fused_qkv_absmax_bytes(topology, setup: QLoRASetup) -> int:
    """The fused q/k/v training projection's extra device bytes (``engines.train_qkv_fuse``, on by default since P129): it keeps
    each fused projection's absmax in fp32, 4 bytes per 64 values where the nested statistics hold 1, so 3 more per 64 q/k/v values.
    Priced only where the run fuses: ``enable_fast_train``'s path, NF4 attention with trained adapters and no bias, the knob on."""
    attn = topology.attention
    if setup.expert_kernel != "grouped_nf4" or attn is None or attn.any_bias or not (setup.attn_4bit and setup.train_attention):
        return 0
    from .engines.train_qkv_fuse import train_fuse_qkv_requested

    return 3 * int(attn.fused_qkv_numel) // 64 if train_fuse_qkv_requested() else 0


def _loss_family(topology):
    """The ``chunked_lm_loss.SUPPORTED`` key the run's model class will have, or None. The run keys on the instantiated
    class's name, which transformers takes from ``config.architectures`` or, when a config carries none, from its
    ``model_type`` (the causal-LM auto mapping); each SUPPORTED entry names its ``model_type`` first, so both are read."""
    from .engines.chunked_lm_loss import SUPPORTED

    if topology.architecture:
        return topology.architecture if topology.architecture in SUPPORTED else None
    return next((name for name, entry in SUPPORTED.items() if entry[0] == topology.model_type), None)


def _head_refusal(topology):
    """Why the chunked loss refuses ``topology``'s LM head at enable time, or ``None``: ``chunked_lm_loss_refusal`` refuses a head
    whose width differs from the config's vocabulary (quietly under ``auto``), and the run then takes the stock loss."""
    head, cfg = int(topology.vocab_size or 0), int(getattr(topology, "config_vocab_size", 0) or 0)
    if head and cfg and head != cfg:
        return f"the chunked loss refuses a {head}-wide lm_head on a {cfg}-token vocabulary, so the run takes the stock loss"
    return None


def _loss_chunk(topology, setup: QLoRASetup, tokens: int, vocab: int):
    """The chunk size the run's training loss will use, or None for the stock loss: what ``enable_fast_train`` decides
    through :mod:`~experts4bit_qlora.engines.chunked_lm_loss` (its table of supported architectures, its switch and its
    ``auto`` size gate), read the same way here so the estimate prices the loss the run takes."""
    if setup.expert_kernel != "grouped_nf4":
        return None                                        # the reference loop never calls enable_fast_train
    from .engines.chunked_lm_loss import chunked_lm_loss_min_bytes, chunked_lm_loss_requested

    if _loss_family(topology) is None or _head_refusal(topology):
        return None                                        # not patched: the table refuses it, or the head is not the vocabulary's width
    chunk = chunked_lm_loss_requested()
    gate = chunked_lm_loss_min_bytes()
    if chunk is None or (gate is not None and tokens * vocab * 4 < gate):
        return None
    return chunk


def estimate_qlora_footprint(topology, setup: QLoRASetup, *, tokens_per_microbatch: int,
                             optimizer: str = "adamw") -> Footprint:
    """Price ``setup`` on ``topology`` for micro-batches of ``tokens_per_microbatch`` tokens (padding included),
    trained with ``optimizer`` (a key of :data:`OPTIMIZERS`).

    Covers what the PyTorch allocator holds for this process at the larger of two peaks, by item, plus the host RAM the
    setup pins: the training step's, and a held-out evaluation's -- a no-grad forward of one micro-batch with labels after an
    optimizer step, priced as the item "held-out evaluation, above the training step" (zero when the step is larger). Under
    ``E4B_CHUNKED_EVAL_LOSS=0`` or ``E4B_CHUNKED_LM_LOSS=0`` that evaluation takes the stock loss, ``T x V x 10`` bytes,
    which on long rows at a large vocabulary is the run's peak. It does not cover the CUDA context, the allocator's reserved-but-unallocated
    blocks, or anything another process holds -- those belong to whoever compares the estimate with a device.

    The loss branch of the activation item follows what the run will do. With ``expert_kernel="grouped_nf4"``,
    ``enable_fast_train`` routes a supported architecture's training forward through the chunked LM loss
    (:mod:`~experts4bit_qlora.engines.chunked_lm_loss`) under ``E4B_CHUNKED_LM_LOSS``: by default (``auto``) exactly when
    the stock fp32 logits, ``T x V x 4`` bytes, reach ``AUTO_MIN_LOGITS_BYTES`` (1 GiB -- e.g. ``T >= 1,767`` at
    Qwen3's 151,936-token vocabulary, ``T >= 5,462`` at granite's 49,155). Then the branch is
    :func:`~experts4bit_qlora.engines.chunked_lm_loss.chunked_loss_bytes` (one chunk's logits plus the gathered hidden
    rows); otherwise it is the whole logits at :data:`LOGITS_LOSS_BYTES` per logit, plus the item "logits held by the caller"
    (``T x V x 2``): the bf16 logits the stock loss returns on the model output, live through the backward when the caller
    keeps that output. A loop that keeps only the loss (HF Trainer) does not pay it.

    ``E4B_CHUNKED_LM_LOSS`` is read here, at estimate time, so a plan prices the loss the run takes only if both see the
    same environment. In one process (a plan followed by its run) they do. A plan written in one process and run in
    another prices the planning process's setting.
    """
    refusals = setup_refusals(topology, setup)
    if refusals:
        return Footprint(items=(), refusals=refusals)
    T = int(tokens_per_microbatch)
    H, V = topology.hidden_size, topology.vocab_size
    ab = _ADAPTER_BYTES[setup.adapter_dtype]
    items, unmodelled = [], []

    # --- frozen expert storage and expert adapters (built on meta: the same classes the load builds) ------
    slab, slab_max_layer, host_pinned, lora_numel, keep_bytes_per_layer = 0, 0, 0, 0, 0
    for st in topology.expert_stacks:
        base, lora = _stack_modules(st, setup)
        b = _stack_device_bytes(base, setup)
        slab += b
        slab_max_layer = max(slab_max_layer, b)
        if setup.expert_residency == "host":
            host_pinned += sum((_pinned_cost if setup.pin else int)(t.numel() * t.element_size())
                               for t in (base.gate_up_proj, base.down_proj, base.gate_up_absmax, base.down_absmax)
                               if t is not None)
        if setup.train_experts:
            lora_numel += sum(p.numel() for n, p in lora.named_parameters() if "lora" in n)
        first_out = _first_out(st)
        keep_bytes_per_layer = max(keep_bytes_per_layer,
                                   T * (topology.top_k or 0) * (first_out + st.intermediate + st.hidden) * 2)
    qdesc = f"{setup.quant_type}, blocksize {setup.blocksize}"
    if setup.expert_residency == "device":
        items.append(FootprintItem("frozen expert stacks", "device", slab, "derived",
                                   f"{len(topology.expert_stacks)} stacks in {qdesc} (packed + absmax"
                                   + (", absmax double-quantized: the enable_fast_train default, E4B_ABSMAX_DQ=0 keeps fp32)"
                                      if _absmax_dq_in_force(setup) else ", absmax fp32)")))
    else:
        items.append(FootprintItem("frozen expert stacks, one layer staged", "device", slab_max_layer, "derived",
                                   "offload streams one layer's stack to the GPU at a time"))
        items.append(FootprintItem("frozen expert stacks, host homes" + (" (pinned)" if setup.pin else ""), "host",
                                   host_pinned, "derived",
                                   f"{slab / 1e9:.2f} GB of {qdesc}"
                                   + (", each pinned tensor rounded up to a power of two" if setup.pin else "")))
        # engines/offload.py: the pre-hook stages a layer's stack for its forward and again for the checkpoint
        # recompute in backward (single resident slot), so every micro-batch moves the whole slab twice
        items.append(FootprintItem("expert staging, host to device per micro-batch", "link", 2 * slab, "derived",
                                   "each layer's stack is copied once for its forward and once for the "
                                   "checkpoint recompute (engines/offload.py)"))
        if setup.expert_kernel == "reference":
            # docs/OFFLOAD_MEMORY_FACTS.md: a constant ~0.64 GB over the shape model on OLMoE (reference loop,
            # every quantized scheme), ~79% of one layer's bf16 dequantized stack. Its mechanism is open.
            w = int(0.79 * 2 * max(s.numel for s in topology.expert_stacks))
            items.append(FootprintItem("offload staging transient", "device", w, "heuristic",
                                       "0.79 x one layer's bf16 dequantized experts (measured ratio on OLMoE, "
                                       "reference loop; mechanism unexplained)"))
        else:
            unmodelled.append("offload staging transient on the fused kernel path (unmeasured)")

    # --- dense (non-expert) weights ----------------------------------------------------------------------
    dense = topology.dense_numel
    attn = topology.attention
    if setup.attn_4bit and attn is not None:
        dense -= attn.numel
        # bitsandbytes Linear4bit, compress_statistics=True: 4-bit codes, an 8-bit absmax per 64 values and an
        # fp32 second-level scale per 256 absmax blocks
        q4 = attn.numel // 2 + attn.numel // 64 + (attn.numel // (64 * 256)) * 4
        items.append(FootprintItem("attention projections (NF4)", "device", q4, "derived",
                                   f"{attn.count} projections, bitsandbytes nested statistics"))
        fq = _fused_qkv_absmax_bytes(topology, setup)
        if fq:
            items.append(FootprintItem("fused q/k/v training projection (fp32 absmax)", "device", fq, "derived",
                                       f"{attn.fused_qkv_numel} q/k/v values, 3 B per 64 over the nested statistics "
                                       "(E4B_TRAIN_FUSE_QKV, on by default)"))
    items.append(FootprintItem("dense weights (bf16)", "device", 2 * dense, "derived",
                               "embeddings, attention, norms, routers, dense/shared MLPs; tied head counted once"))

    # --- adapters, gradients, optimizer ------------------------------------------------------------------
    attn_lora = setup.r * attn.in_plus_out if (setup.train_attention and attn is not None) else 0
    attn_dtype = _attention_adapter_dtype(setup)
    aab = _ADAPTER_BYTES[attn_dtype]
    if lora_numel:
        items.append(FootprintItem("expert LoRA adapters", "device", lora_numel * ab, "derived",
                                   f"ExpertsLoRA r={setup.r}, {setup.adapter_dtype}"))
    if attn_lora:
        items.append(FootprintItem("attention LoRA adapters", "device", attn_lora * aab, "derived",
                                   f"{attn.count} projections, r={setup.r}, {attn_dtype}"))
    items.append(FootprintItem("adapter gradients", "device", lora_numel * ab + attn_lora * aab, "derived",
                               "one gradient per trainable parameter, in its dtype"))
    per_param, how = OPTIMIZERS[optimizer]
    items.append(FootprintItem(f"optimizer state ({optimizer})", "device",
                               int(per_param(ab) * lora_numel + per_param(aab) * attn_lora), "derived", how))
    items.append(FootprintItem("small allocations", "device", SMALL_ALLOCATIONS_BYTES, "heuristic",
                               "kernel scratch, lookup tables, index and staging buffers under 1 MiB each "
                               "(measured 0.4-2.0 MB at TC1's census peaks)"))

    # --- activations (gradient checkpointing on; a stated formula, not a measurement) ---------------------
    n_layers = topology.n_layers
    boundaries = n_layers * T * H * 2
    chunk = _loss_chunk(topology, setup, T, V)
    if chunk:
        from .engines.chunked_lm_loss import chunked_loss_bytes

        logits = chunked_loss_bytes(T, V, hidden=H, chunk=chunk)
        loss_how = f"the chunked LM loss in {chunk}-token chunks = {logits / 1e9:.2f} GB"
    else:
        logits = T * V * LOGITS_LOSS_BYTES
        loss_how = f"logits and loss, three fp32 logits-sized tensors = {logits / 1e9:.2f} GB"
    st0 = topology.expert_stacks[0]
    first_out0 = _first_out(st0)
    kv = (attn.kv_elements_per_token // max(attn.layers, 1)) if attn else 0
    layer = T * ((H + kv + H) * 2 + (topology.top_k or 0) * (first_out0 + st0.intermediate + st0.hidden) * 2
                 + st0.n_experts * 4)
    backward, backward_how = _grouped_nf4_backward(topology, setup, T, layer)
    branches = f"{loss_how}, 2 x one layer's recompute = {2 * layer / 1e9:.2f} GB" + (f", {backward_how}" if backward else "")
    items.append(FootprintItem("activations", "device", boundaries + max(logits, 2 * layer, backward), "heuristic",
                               f"{n_layers} saved layer inputs (T x H bf16) + max({branches}) at T={T}"))
    if not chunk:
        # The stock loss hands its bf16 logits back on the model output, and a loop that keeps the output across the backward
        # (`out = model(...); out.loss.backward()`) holds them through every branch above. LOGITS_LOSS_BYTES was measured
        # on the chunked loss, which returns no logits, so it does not include them (#1526: the native T=1024 probe row,
        # 296.75 MiB of a 304.5 MiB residual). HF Trainer's compute_loss drops the output, so there this over-counts by
        # exactly this item. The estimate is a capacity bound and cannot tell which loop it prices, so it keeps the term.
        items.append(FootprintItem("logits held by the caller", "device", T * V * 2, "derived",
                                   f"the stock loss's bf16 logits, T x V x 2 = {T * V * 2 / 1e9:.2f} GB, live through the "
                                   "backward while the caller holds the model output (zero if it keeps only the loss)"))
    if setup.keep_moe_layers:
        n_keep = min(setup.keep_moe_layers, len(topology.expert_stacks))
        items.append(FootprintItem("kept MoE activations", "device", n_keep * keep_bytes_per_layer, "heuristic",
                                   f"{n_keep} layers x T x top_k x (first_out + I + H) bf16"))
    # --- the held-out evaluation: a no-grad forward of one micro-batch with labels, after an optimizer step --------------
    # No gradients are live (zeroed to None after the step); everything else is. Its loss buffers can exceed the training
    # step's peak: on TC1's packed 4,096-token Qwen3-30B-A3B rows with stock evaluation they were the run peak.
    train_total = sum(i.bytes for i in items if i.where == "device")
    held = sum(i.bytes for i in items if i.where == "device"
               and i.name not in ("adapter gradients", "activations", "kept MoE activations", "logits held by the caller"))
    eval_loss, eval_how = _eval_loss_bytes(topology, setup, T, V, H)
    eval_total = held + max(eval_loss, layer)
    items.append(FootprintItem("held-out evaluation, above the training step", "device", max(0, eval_total - train_total),
                               "heuristic",
                               f"a no-grad forward of one {T}-token micro-batch with labels: {held / 1e9:.2f} GB held "
                               f"(no gradients) + max({eval_how}, one layer's working set = {layer / 1e9:.2f} GB) = "
                               f"{eval_total / 1e9:.2f} GB against the training step's {train_total / 1e9:.2f} GB"))
    if attn is not None and attn.layers < n_layers:
        unmodelled.append(f"{n_layers - attn.layers} of {n_layers} layers mix tokens without q/k/v attention "
                          "(state-space, convolution or linear attention): their recompute working set")
    if setup.expert_kernel == "grouped_nf4" and not topology.architecture and _loss_family(topology) is None:
        unmodelled.append(f"the LM loss branch: the config names no architecture and its model_type {topology.model_type!r} "
                          "is not in chunked_lm_loss.SUPPORTED, so whether the run chunks its loss cannot be told; priced "
                          "the stock loss (the larger)")
    unmodelled += ["CUDA context, cuBLAS/Triton workspaces and allocator fragmentation (the caller's to add)",
                   "load-time transients (the streaming loader's per-tensor quantize; host page cache)"]
    return Footprint(items=tuple(items), unmodelled=tuple(unmodelled))


@dataclass
class PreparedQLoRA:
    model: object
    trainable: list
    #: what was actually engaged, for a receipt: counts the setup implies, and every accelerated path asserted
    report: dict = field(default_factory=dict)


def vocab_width_refusal(topology, model) -> str | None:
    """Why ``model``'s LM head is not the vocabulary width ``topology`` was priced at, or ``None`` when they agree.

    The plan's loss terms (:func:`_loss_chunk`, :func:`_eval_loss_bytes`) read ``topology.vocab_size``; the chunked loss's
    run-time gate reads ``lm_head.out_features``. A head resized after the topology was described (``resize_token_embeddings``)
    would let the two pick different loss branches near the gate, so a mismatch is refused by name, never picked silently."""
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    width = getattr(head, "out_features", None)
    if width is None:
        return None                                    # no linear head to read; the chunked loss refuses such a model itself
    if int(width) != int(topology.vocab_size):
        return (f"the plan priced a {topology.vocab_size}-wide vocabulary but the model's lm_head is {int(width)} wide (resized after "
                "the topology was described?); describe the model as it will train, so the plan and the chunked loss's gate read "
                "one width")
    return None


def prepare_qlora_training(model_id, setup: QLoRASetup, *, device="cuda", revision=None) -> PreparedQLoRA:
    """Load ``model_id`` and build ``setup`` on it: the documented fast path as one call.

    Order: :func:`~experts4bit_qlora.load_moe_4bit_streaming` (experts quantized on the way in; host-resident
    when ``expert_residency="host"``), the optional NF4 attention store, gradient checkpointing, attention LoRA,
    then :func:`~experts4bit_qlora.enable_fast_train` for ``expert_kernel="grouped_nf4"``. Every requested
    accelerated path must engage or this raises ``RuntimeError`` -- never a silent fallback. Returns the model,
    the trainable parameters (every LoRA tensor; nothing else requires grad) and a report of what engaged.
    Refuses (``ValueError``) a setup :func:`setup_refusals` rejects for this model, before loading anything, and a loaded
    model whose LM head is not the width the setup was priced at (:func:`vocab_width_refusal`), before any engine is enabled.
    """
    from .arch.topology import describe_moe
    from .loader import load_moe_4bit_streaming
    from .lora import ExpertsLoRA, LoRALinear, add_attention_lora, quantize_attention_projections_4bit

    topology = describe_moe(model_id, revision=revision)
    refusals = setup_refusals(topology, setup)
    if refusals:
        raise ValueError("QLoRASetup refused for this model: " + "; ".join(refusals))
    host = setup.expert_residency == "host"
    model, config = load_moe_4bit_streaming(model_id, device, torch.bfloat16, setup.r, setup.alpha, offload=host,
                                            pin=setup.pin, quant_type=setup.quant_type, revision=revision,
                                            blocksize=setup.blocksize)
    why = vocab_width_refusal(topology, model)
    if why:
        raise ValueError("QLoRASetup refused for this model: " + why)
    if not host:
        model.to(device)
    report = {"setup": setup.to_dict(), "commit": getattr(config, "_commit_hash", None)}
    if setup.attn_4bit:
        report["attn_4bit_projections"] = quantize_attention_projections_4bit(model)
        if not report["attn_4bit_projections"]:
            raise RuntimeError("attn_4bit: no attention projection was converted")
    model.config.use_cache = False
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    model.enable_input_require_grads()
    dtype = _DTYPES[setup.adapter_dtype]
    if setup.train_attention:
        report["attention_lora_projections"] = add_attention_lora(model, setup.r, setup.alpha,
                                                                  _DTYPES[_attention_adapter_dtype(setup)])
    if setup.train_experts and dtype != torch.bfloat16:
        for mod in model.modules():
            if isinstance(mod, ExpertsLoRA):
                for n, p in mod.named_parameters(recurse=False):
                    if "lora" in n:
                        p.data = p.data.to(dtype)
    if setup.expert_kernel == "grouped_nf4":
        from .engines.fast import enable_fast_train
        from .engines.rmsnorm_train import fused_rmsnorm_requested
        from .engines.rope_train import fused_rope_requested

        from .engines.moe_keep import moe_keep_layers_requested

        # enable_fast_train also reads E4B_MOE_KEEP_LAYERS; say so if the environment set it behind the setup
        report["env_moe_keep_layers"] = moe_keep_layers_requested()
        n = enable_fast_train(model, dgrad=setup.dgrad)
        if n == 0:
            raise RuntimeError("expert_kernel='grouped_nf4': enable_fast_train patched 0 modules "
                               "(is grouped-nf4-gemm installed?)")
        report.update(fused_expert_modules=n, dgrad=setup.dgrad, fused_rope=fused_rope_requested(),
                      fused_rmsnorm=fused_rmsnorm_requested())
        try:
            import nf4_route

            report["train_gemm_route"] = nf4_route.train_gemm_route(torch.device(device))
        except ImportError:
            report["train_gemm_route"] = "fused (grouped-nf4-gemm without nf4_route)"
        if setup.keep_moe_layers:
            from .engines.moe_keep import keep_moe_activations

            report["kept_moe_layers"] = keep_moe_activations(model, setup.keep_moe_layers)
    # backend-adapter/2's resolved facts, read AFTER enable_fast_train has resolved the absmax form and fused q/k/v
    # (adapter_schema.resolved_training_facts); without the grouped kernel neither ran, so no stale record is read
    from .adapter_schema import resolved_training_facts

    if setup.expert_kernel == "grouped_nf4":
        from .engines.fast import FAST_TRAIN_STATS
        from .engines.train_qkv_fuse import TRAIN_QKV_STATS

        report.update(resolved_training_facts(model, setup, fast_stats=FAST_TRAIN_STATS, qkv_stats=TRAIN_QKV_STATS))
    else:
        report.update(resolved_training_facts(model, setup, fast_stats=None, qkv_stats=None))
    trainable = []
    for mod in model.modules():
        if isinstance(mod, (ExpertsLoRA, LoRALinear)):
            for n, p in mod.named_parameters(recurse=False):
                if "lora" in n and (setup.train_attention if isinstance(mod, LoRALinear) else setup.train_experts):
                    trainable.append(p)
    keep = {id(p) for p in trainable}
    for p in model.parameters():
        p.requires_grad_(id(p) in keep)
    report["trainable_numel"] = sum(p.numel() for p in trainable)
    return PreparedQLoRA(model=model, trainable=trainable, report=report)
