# Copyright (c) 2026 Cerin Amroth LLC. MIT license (see LICENSE).
"""Model-driving :class:`~.scheduler.StepRunner` — hybrid Stage 2, Phase 9.

The scheduler decides what runs; this runs it. Everything structural
lives elsewhere by design — paging and attention in
:mod:`.paged_attention`, expert placement in the hybrid tier — so what
remains here is bookkeeping with three jobs the gate depends on:

* bind a sequence to a KV slot and keep its position clock, since the
  paged attention path owns the KV and the model is run with
  ``use_cache=False``;
* flip mixed mode around each regime — prefill chunks compute-bound on
  the GPU, decode bandwidth-bound on the hybrid tier;
* flush a completed prompt's staged K/V into the FP8 pool exactly once,
  which is the moment a sequence stops being a prefill and becomes a
  resident decoder.

Greedy sampling in v1, stated rather than implied: G9 measures
throughput and latency, and a sampler would add variance to both without
changing either mechanism.

**Bucketed decode graphs (#511, opt-in).** :meth:`PagedModelRunner.enable_decode_graphs`
captures one CUDA graph per batch bucket (default ``{1, 2, 4, 8, 16}``). A decode step pads
its active set up to the next bucket with the KV cache's scratch slots, replays that
bucket's graph and discards the padded rows. Each bucket is captured on SCRATCH slots only,
so neither the warm-up forwards nor the capture can advance a live sequence. A bucket whose
capture fails runs the SAME padded step eagerly, and says so once. The oracle for a replay
is that padded eager step, bitwise: a bf16 GEMM can round differently at a different row
count, so an unpadded eager step is not the same function.

**First-chunk prefill graph (opt-in, ``E4B_PAGED_PREFILL_GRAPH``).** :meth:`PagedModelRunner.enable_prefill_graph`
captures one CUDA graph of a ``T``-token prefill forward at positions ``0..T-1`` and serves every first chunk of
exactly ``T`` tokens from it. A first chunk reads no history: its attention runs over its own K/V, which
:meth:`.paged_attention.PagedAttentionContext.stage` keys by slot in Python. So one graph serves every slot, and after
a replay the graph's K/V outputs are staged for the request's slot. Later chunks, and first chunks of any other
length, run eagerly and are counted by reason. The A2000 census (``bench/prefill-graph-census-2026-10-04``) found no
host sync in the prefill forward under device grouping.
"""
from __future__ import annotations

import inspect
import warnings

import torch

from . import linear_state
from .paged_attention import PagedAttentionContext, set_context
from .scheduler import StepRunner

DEFAULT_BUCKETS = (1, 2, 4, 8, 16)


class PrefillGraphRefused(ValueError):
    """:meth:`PagedModelRunner.enable_prefill_graph` would not engage; ``why`` is the reason."""

    def __init__(self, why: str):
        super().__init__(f"prefill graph refused: {why}")
        self.why = why


#: ``config.layer_types`` values whose layers own K/V in the paged pool, and values that carry no per-sequence state
ATTENTION_LAYER_TYPES = frozenset({"full_attention", "sliding_attention", "attention"})
STATELESS_LAYER_TYPES = frozenset({"mlp", "moe"})
#: every layer type the runner can serve: attention (K/V in the paged pool), stateless, and linear attention (per-slot
#: state in :mod:`.linear_state`)
KEPT_LAYER_TYPES = ATTENTION_LAYER_TYPES | STATELESS_LAYER_TYPES | {linear_state.LINEAR_LAYER_TYPE}
#: config keys under which a hybrid declares its per-layer mixer list when it carries no ``layer_types``
#: (Nemotron-H: ``hybrid_override_pattern`` or ``layers_block_type``; Jamba: ``attn_layer_period`` /
#: ``attn_layer_offset``), and the key prefixes of a state-space mixer's geometry
MIXER_PATTERN_KEYS = ("layers_block_type", "hybrid_override_pattern", "attn_layer_period", "attn_layer_offset")
SSM_KEY_PREFIXES = ("mamba_", "ssm_")


def kv_layout_refusal(config) -> str | None:
    """Why the FP8 paged pool cannot hold this model's K/V, or None. ``Fp8PagedKV`` keeps one head dim per layer for
    both. Multi-head latent attention (DeepSeek-V2 / V3, Kimi: ``kv_lora_rank``) hands attention keys of
    ``qk_nope_head_dim + qk_rope_head_dim`` and values of ``v_head_dim``, against a ``head_dim`` that is the rotary
    width: DeepSeek-V2-Lite's are 192 and 128 against 64, and the first prompt's append refused them."""
    c = getattr(config, "text_config", None) or config
    if not getattr(c, "kv_lora_rank", None):
        return None
    k = (getattr(c, "qk_nope_head_dim", 0) or 0) + (getattr(c, "qk_rope_head_dim", 0) or 0)
    return (f"multi-head latent attention (kv_lora_rank {c.kv_lora_rank}): keys {k} and values "
            f"{getattr(c, 'v_head_dim', None)} wide per head, and the FP8 paged pool keeps one head dim for both")


def undeclared_mixer_refusal(config) -> str | None:
    """Why a config WITHOUT ``layer_types`` cannot be planned as all attention, or None. A config that names its
    per-layer mixers under another key (:data:`MIXER_PATTERN_KEYS`), or carries a state-space mixer's geometry (a key
    starting ``mamba_`` / ``ssm_``), has layers that are not attention; :func:`layer_plan` would flush K/V for them and
    run them without their state. transformers derives ``layer_types`` for the hybrids it knows (5.17 does for
    Nemotron-H and Jamba), so this guards the configs that reach the runner without one."""
    if config is None or linear_state.layer_types(config):
        return None
    c = getattr(config, "text_config", None) or config
    keys = list(c.to_dict()) if hasattr(c, "to_dict") else list(getattr(c, "__dict__", {}))
    declared = [k for k in MIXER_PATTERN_KEYS if getattr(c, k, None) not in (None, "", [], ())]
    declared += sorted(k for k in keys if k.startswith(SSM_KEY_PREFIXES) and getattr(c, k, None) is not None)
    if not declared:
        return None
    named = ", ".join(declared[:4]) + (", ..." if len(declared) > 4 else "")
    return (f"the config declares non-attention mixers ({named}) but no layer_types, so the paged runner would plan "
            "every layer as attention")


def paged_state_refusal(model) -> str | None:
    """Why the paged server refuses ``model``, or None: :func:`kv_layout_refusal`, then the runner's rules for
    state-carrying layers. The serve estimate, serve_paged's refusal before any weight is read
    (:func:`config_state_refusal`) and :func:`layer_plan` all ask this one function:
    - no ``layer_types``: :func:`undeclared_mixer_refusal`;
    - a layer type the runner keeps no state for;
    - linear-attention layers its per-slot pool cannot drive (:func:`.linear_state.driven_linear_layers`).
      transformers labels Mamba-style layers ``linear_attention`` too, and the pool drives Gated DeltaNet only.

    It reads the config and module classes only, so a planner can ask on a meta tree."""
    config = getattr(model, "config", None)
    layout = kv_layout_refusal(config)
    if layout:
        return layout
    types = linear_state.layer_types(config)
    if not types:
        return undeclared_mixer_refusal(config)
    unknown = sorted(set(types) - KEPT_LAYER_TYPES)
    if unknown:
        return f"layer types {unknown} carry state the paged runner does not keep"
    want, driven = linear_state.driven_linear_layers(model)
    if want and want != driven:
        return (f"config.layer_types names linear-attention layers {want}, but the per-slot state pool drives "
                f"{driven} (Gated DeltaNet only); the others would run without their state")
    return None


def config_state_refusal(config, *, trust_remote_code: bool = False) -> str | None:
    """:func:`paged_state_refusal` asked of ``config`` before any weight is read: on the module tree transformers
    builds from it with empty weights (no allocation), the same tree the serve estimate asks. A composite config's
    text tower is the served model. When this transformers cannot build the tree, the config-only rules still answer
    (:func:`kv_layout_refusal`, :func:`undeclared_mixer_refusal`), and the loader's and the runner's own refusals
    stand at load and build."""
    layout = kv_layout_refusal(config)
    if layout:
        return layout
    lm_config = getattr(config, "text_config", None) or config
    try:
        from accelerate import init_empty_weights
        from transformers import AutoModelForCausalLM
        with init_empty_weights():
            tree = AutoModelForCausalLM.from_config(lm_config, dtype=torch.bfloat16,
                                                    trust_remote_code=trust_remote_code)
    except Exception as e:                              # noqa: BLE001 -- no tree here: the config-only rules answer
        warnings.warn(f"[e4b.paged_runner] no empty-weight tree for model_type "
                      f"{getattr(lm_config, 'model_type', None)!r} ({type(e).__name__}: {str(e)[:200]}); the config-only "
                      "rules answer before the load, and the runner's own refusal still stands when it is built",
                      RuntimeWarning, stacklevel=2)
        return undeclared_mixer_refusal(config)
    return paged_state_refusal(tree)


def layer_plan(model, n_layers: int, n_slots: int):
    """``(attention layer indices, linear-state pool or None)`` for ``model``.

    A model without ``layer_types`` is all attention (every layer flushes K/V) unless its config declares other
    mixers. A hybrid model's linear-attention layers keep per-slot state in :mod:`.linear_state` (installed here).
    Anything :func:`paged_state_refusal` refuses is refused here, rather than run without its state."""
    why = paged_state_refusal(model)
    if why:
        raise NotImplementedError(f"{why}; refusing")
    types = linear_state.layer_types(getattr(model, "config", None))
    if not types:
        return list(range(n_layers)), None
    attn = [i for i, t in enumerate(types) if t in ATTENTION_LAYER_TYPES]
    pool = linear_state.install(model, n_slots) if linear_state.LINEAR_LAYER_TYPE in types else None
    return attn, pool


def decoder_layers(config) -> int:
    """The decoder's layer count (a composite's text config). It is the paged KV pool's layer count unless
    ``config.layer_types`` says some layers keep no K/V. It is NOT the MoE layer count: a model whose leading layers
    are dense (ERNIE-4.5's layer 0, DeepSeek-V2's first_k_dense_replace) still has attention in them, and a pool sized
    by its MoE layers indexed past its end at the first dense layer's append."""
    c = getattr(config, "text_config", None) or config
    return int(c.num_hidden_layers)


def kv_layers(model, n_layers: int) -> int:
    """How many layers a paged KV pool needs for ``model``: its attention layers when ``config.layer_types`` names
    them (a hybrid model's linear layers keep no K/V), else ``n_layers``."""
    types = linear_state.layer_types(getattr(model, "config", None))
    attn = [t for t in types if t in ATTENTION_LAYER_TYPES]
    return len(attn) if types and len(attn) < len(types) else n_layers


def kv_layer_map(attn_layers, pool_layers: int) -> dict:
    """``{model attention layer: KV pool layer}``. Empty (identity) when the pool has a layer for every index up to
    the last attention layer; compact when the pool holds exactly the attention layers; refused otherwise."""
    if not attn_layers or pool_layers > max(attn_layers):
        return {}
    if pool_layers == len(attn_layers):
        return {a: i for i, a in enumerate(attn_layers)}
    raise ValueError(f"the KV pool has {pool_layers} layers; the model's attention layers are {list(attn_layers)}: size "
                     f"it to {len(attn_layers)} (compact) or to at least {max(attn_layers) + 1} (one per layer index)")


def bucket_for(n: int, buckets) -> int:
    """The smallest bucket that holds ``n`` rows (``n`` <= the largest)."""
    for b in buckets:
        if n <= b:
            return b
    raise ValueError(f"{n} rows exceed the largest bucket {buckets[-1]}")


def chunk_rows(rids, max_bucket: int):
    """Split an active set into consecutive chunks of at most ``max_bucket``."""
    rids = list(rids)
    return [rids[i:i + max_bucket] for i in range(0, len(rids), max_bucket)]


def _output_width(model) -> int:
    """The LM head's output width (the vocabulary it scores). A dense head has a ``weight``; the int4 head
    (``E4B_SERVE_LMHEAD_INT4_CALIB=1``, ``engines.int4_attn.Int4Linear``) carries its packed grid and ``N`` instead,
    so reading ``.weight`` crashed the default graph server's build with that head (lane P125's proof)."""
    head = model.get_output_embeddings()
    n = getattr(head, "N", None)
    return int(n) if n is not None else int(head.weight.shape[0])


def _last_logits_kwargs(model, enabled: bool) -> dict:
    """An explicitly supported last-position LM-head keyword, or refuse.

    A catch-all **kwargs is not evidence that a model implements the operation.
    This only changes the head's row count: every prompt token still traverses
    the decoder and stages its K/V. The different GEMM shape needs a quality read.
    """
    if not enabled:
        return {}
    try:
        params = inspect.signature(model.forward).parameters
    except (TypeError, ValueError) as exc:
        raise ValueError("last-logits prefill requires an inspectable model.forward") from exc
    for key in ("logits_to_keep", "num_logits_to_keep"):
        param = params.get(key)
        if param is not None and param.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                inspect.Parameter.KEYWORD_ONLY):
            return {key: 1}
    raise ValueError("last-logits prefill requires an explicit logits_to_keep or num_logits_to_keep keyword")


class PagedModelRunner(StepRunner):
    def __init__(self, model, kv, *, device="cuda", eos_id: int | None = None,
                 gpu_only_prefill: bool = True, bulk_kv: bool = False, last_logits: bool = False):
        """``last_logits`` is opt-in: prefill requests only the final position's
        logits, with an explicit model keyword or a refusal. Decode is unchanged.
        Eager prefill, graph capture and the graph's startup oracle share the mode.
        """
        self.model = model
        self._last_logits_kwargs = _last_logits_kwargs(model, last_logits)
        self._prefill_forward_calls = 0
        self.kv = kv
        # E4B_PAGED_BULK_KV (serve_paged): a request's KV bookkeeping -- the slot reset at bind and free, the prompt's
        # flush into the pool, and (with decode graphs) the claim of every block the slot can reach -- in a launch count
        # independent of layers and blocks (Fp8PagedKV.reset_all_layers / append_prompt / claim_blocks). The pool, the
        # tables and the lengths it leaves are the per-layer forms'; off keeps the per-layer forms.
        self.bulk_kv = bool(bulk_kv)
        # which path each request's bookkeeping took (/health's kv_bookkeeping: a registered lane's engagement gate)
        self._kv_counts = {"flush_layers": 0, "flush_bulk": 0, "flush_bulk_fallback": 0, "ready_layers": 0, "ready_bulk": 0,
                           "ready_at_flush": 0}
        self.tracer = None           # engines.step_trace.StepTrace, set by serve_paged under E4B_PAGED_STEP_TRACE
        self.device = torch.device(device)
        self.eos_id = eos_id
        self.gpu_only_prefill = gpu_only_prefill
        self.ctx = PagedAttentionContext(kv=kv, slots=[], mode="decode")
        self.slot_of: dict[int, int] = {}
        self.pos_of: dict[int, int] = {}
        self.tokens: dict[int, list[int]] = {}
        self.tiers = [m._hot_residency for m in model.modules()
                      if hasattr(m, "_hot_residency")
                      and hasattr(m._hot_residency, "prefill_gpu_only")]
        self.n_layers = kv.L
        # the layers whose K/V the pool holds, and the per-slot linear-attention state of a hybrid model
        n_slots = int(getattr(kv, "B", 0)) + len(getattr(kv, "scratch", ()) or ())
        self.attn_layers, self.linear_state = layer_plan(model, self.n_layers, n_slots)
        # a hybrid model's pool may hold its attention layers only: paged attention maps model layer -> pool layer
        self.ctx.layer_map = kv_layer_map(self.attn_layers, self.n_layers)
        # the pool layers attention appends to (all of them, unless a hybrid's pool keeps a row per model layer)
        self.pool_layers = [self.ctx.layer_map.get(a, a) for a in self.attn_layers]
        self._graphs = None          # bucket -> CUDAGraph | None (eager); see enable_decode_graphs
        self._prefill_graph = None   # see enable_prefill_graph
        # E4B_PAGED_KV_POOL=shared (lever G1, bench/kv-pool-g/DESIGN.md): a graphed slot claims the blocks its next write
        # reaches, before each step, instead of every block it could ever reach at its first graphed decode
        self.incremental_claims = False
        self._pg_refused = None      # why an `auto` prefill graph stood down (see note_prefill_graph_refused)
        self._pg_stats = {"replays": 0, "eager_chunks": 0, "eager_reasons": {"later_chunk": 0, "short_chunk": 0}}
        self._la = None              # decode lookahead state (issue_decode / collect_decode), built at first use
        # speculative decode (E4B_PAGED_SPEC, lane SD2): see enable_speculation
        self.spec = None
        self.speculative = False
        self._verify_buckets: tuple = ()
        self._budgets: dict[int, int] = {}

    # ------------------------------------------------------------ intake --
    def bind(self, rid: int, slot: int, prompt) -> None:
        if slot in set(getattr(self.kv, "scratch", ()) or ()):
            raise ValueError(f"slot {slot} is a scratch slot (padding rows for the decode "
                             f"graphs); give the scheduler kv_slots = {self.kv.B}")
        self.slot_of[rid] = slot
        self.pos_of[rid] = 0
        self.tokens[rid] = list(prompt)
        if self._la is not None:                    # the slot's device token is the previous tenant's
            self._la["dev_len"].pop(slot, None)
            self._la["dev_tok"].pop(slot, None)
        self._reset(slot)            # a recycled slot carries no history
        if self.linear_state is not None:
            self.linear_state.reset(slot)

    def _reset(self, slot: int) -> None:
        if self.bulk_kv:
            self.kv.reset_all_layers(slot)
        else:
            self.kv.reset(slot)

    def _mode(self, prefill: bool) -> None:
        if self.gpu_only_prefill:
            for t in self.tiers:
                t.prefill_gpu_only(prefill)

    # -------------------------------------------------------- StepRunner --
    @torch.no_grad()
    def _prefill_forward(self, ids, positions):
        out = self.model(input_ids=ids, position_ids=positions, use_cache=False, **self._last_logits_kwargs)
        if self._last_logits_kwargs and out.logits.shape[-2] != 1:
            raise RuntimeError("last-logits prefill requested one position but the model returned "
                               f"{out.logits.shape[-2]}")
        self._prefill_forward_calls += 1
        return out

    def last_logits_stats(self) -> dict:
        """The prefill LM-head mode; forward counts include warmup/capture,
        while graph replay counts remain in :meth:`prefill_graph_stats`.
        """
        return {"status": "on" if self._last_logits_kwargs else "off",
                "keyword": next(iter(self._last_logits_kwargs), None),
                "prefill_forward_calls": self._prefill_forward_calls}

    @torch.no_grad()
    def run_prefill(self, chunks):
        first: dict[int, int] = {}
        self._mode(True)
        self.ctx.mode = "prefill"
        try:
            for rid, start, take in chunks:
                slot = self.slot_of[rid]
                self.ctx.slots = [slot]
                done = start + take >= len(self.tokens[rid])
                pg = self._prefill_graph
                if self.spec is not None:
                    self.spec.aux.mode = ("prefill", start)   # SD2: this chunk's states, at their positions
                if self.tracer is not None:
                    self.tracer.count("prefill_chunks")
                    self.tracer.count("prefill_tokens", take)
                    self.tracer.count("prefill_replays", int(pg is not None and start == 0 and take == pg["T"]))
                    self.tracer.mark("pf_prep", event=True)   # the GPU is idle here: forward device time starts
                if pg is not None and start == 0 and take == pg["T"]:
                    logits = self._replay_prefill_graph(rid, slot, take, done)
                else:
                    if pg is not None:
                        self._note_eager("later_chunk" if start else "short_chunk")
                    ids = torch.tensor(self.tokens[rid][start:start + take],
                                       dtype=torch.long, device=self.device)
                    pos = torch.arange(start, start + take, device=self.device)
                    prev = set_context(self.ctx)
                    try:
                        out = self._prefill_forward(ids[None], pos[None])
                    finally:
                        set_context(prev)
                    logits = out.logits
                if self.linear_state is not None:
                    self.linear_state.mark([slot])     # its linear layers now carry this prompt's state
                self.pos_of[rid] = start + take
                tr = self.tracer
                if tr is not None:
                    tr.mark("pf_forward", event=True)
                if start + take >= len(self.tokens[rid]):
                    # prompt complete: the staged bf16 K/V become the
                    # sequence's FP8 residency, once, here (attention layers only)
                    if self.bulk_kv:
                        self._flush_bulk(rid, slot)
                    else:
                        self._kv_counts["flush_layers"] += 1
                        for layer in self.pool_layers:
                            staged = self.ctx.flush(layer, slot)
                            if staged is None:
                                raise RuntimeError(
                                    f"layer {layer} staged no K/V for rid {rid} "
                                    f"— the attention implementation was not "
                                    f"bound for this forward")
                            k, v = staged
                            self.kv.append(layer, slot, k.contiguous(),
                                           v.contiguous())
                    if tr is not None:
                        tr.mark("pf_flush", event=True)
                    tok = int(logits[0, -1].argmax(-1))
                    if tr is not None:
                        tr.mark("pf_sync")
                    first[rid] = tok
                    self.tokens[rid].append(tok)
                    self.pos_of[rid] += 1
                    if self.spec is not None and len(self.slot_of) == 1:
                        # SD2: the prompt completed with its request the only one bound; it speculates while alone
                        self.spec.start(rid, slot, self.tokens[rid])
        finally:
            self.ctx.mode = "decode"
            self._mode(False)
            if self.spec is not None:
                self.spec.aux.mode = "decode"
        return first

    def _flush_bulk(self, rid: int, slot: int) -> None:
        """The prompt's staged K/V into the pool for every pool layer at once (``Fp8PagedKV.append_prompt``). With
        decode graphs the slot's every reachable block is claimed first, in the same single table write, so its first
        graphed decode claims nothing (:meth:`_ensure_graph_ready`)."""
        ks, vs = [], []
        for layer in self.pool_layers:
            buf = self.ctx.staging.pop((layer, slot), None)
            if buf is None:
                raise RuntimeError(f"layer {layer} staged no K/V for rid {rid} — the attention implementation was "
                                   f"not bound for this forward")
            ks.append(buf[0][0] if len(buf[0]) == 1 else torch.cat(buf[0]))
            vs.append(buf[1][0] if len(buf[1]) == 1 else torch.cat(buf[1]))
        if self._graphs is not None and slot not in self._graph_ready:
            # claim-all: every reachable block; incremental: the prompt's blocks and the one its first decode writes
            last = (min(self.kv.blocks_per_seq - 1, len(self.tokens[rid]) // self.kv.bt)
                    if getattr(self, "incremental_claims", False)
                    else self._claim_all_last())
            self.kv.claim_blocks(slot, last, self.pool_layers)
            self._graph_ready.add(slot)
            self._kv_counts["ready_at_flush"] += 1
        if not self.kv.append_prompt(slot, self.pool_layers, ks, vs):
            self._kv_counts["flush_bulk_fallback"] += 1     # append_prompt took its per-layer path (same bytes)
        self._kv_counts["flush_bulk"] += 1

    # ------------------------------------------------- speculative decode (SD2) --
    def enable_speculation(self, spec) -> int:
        """Speculative decode for a request decoding alone (``engines.spec_decode.SpecDecoder``, lane SD2,
        ``bench/sd2/PREREG-sd2.md``). Call it BEFORE :meth:`enable_decode_graphs` and the prefill graph: the auxiliary
        hooks' copies are captured into those graphs, and the verify buckets (2 .. k + 1 rows) are captured beside the
        decode buckets. Plain batched steps keep :func:`bucket_for` over the decode buckets alone (the maintainer's
        aliasing condition 4). Needs a pool with at least k alias slots. Returns k, or raises.

        A hybrid model is refused: the rollback is a length, which cannot undo a linear-attention layer's per-slot
        state, so after a rejected draft that state would carry the rejected tokens."""
        if self._graphs is not None or self._prefill_graph is not None:
            raise RuntimeError("enable_speculation must come before the decode and prefill graphs are captured")
        if self.linear_state is not None:
            raise ValueError("speculative decode refuses a hybrid model: its rollback is a KV length, which cannot "
                             "undo a linear-attention layer's per-slot state")
        if int(getattr(self.kv, "n_alias", 0)) < spec.k:
            raise ValueError(f"speculation at k = {spec.k} needs {spec.k} alias slots in the KV pool "
                             f"(Fp8PagedKV(alias_slots=...)); it has {getattr(self.kv, 'n_alias', 0)}")
        spec.verify = self._spec_verify
        spec.aux.mode = "decode"
        self.spec, self.speculative = spec, True
        self._verify_buckets = tuple(range(2, spec.k + 2))
        return spec.k

    def decode_budgets(self, left: dict) -> None:
        """How many tokens each request may still emit (the scheduler's, before each decode)."""
        self._budgets = dict(left)

    def _spec_verify(self, slot: int, n: int, ids, pos):
        """The target's verify of ``n`` rows at ``slot``: the decode bucket of ``n`` rows, row 0 on the slot and rows
        1..n-1 on alias slots bound to it, so each row appends at its own position and reads the stagger. The
        auxiliary states land in ``spec.aux.dec[:n]``. Returns the argmax per row (device)."""
        kv, buf = self.kv, self._bufs[n]
        self._ensure_graph_ready(slot)
        rows = [slot] + kv.alias_bind(slot, n - 1)       # before the load: the step selection reads these rows
        buf["ids"].copy_(ids.view(n, 1))
        buf["pos"].copy_(pos.view(n, 1))
        kv.graph_bucket_load(buf["st"], rows)
        g = self._graphs[n]
        stats = self.graph_stats[n]
        if g is not None:
            g.replay()
            stats["replays"] += 1
        else:
            self._bind(n, rows)
            prev = set_context(self.ctx)
            try:
                self._padded_step(n)
            finally:
                set_context(prev)
                kv.graph_bucket_unbind()
            stats["eager_steps"] += 1
        kv.graph_bucket_publish(buf["st"])
        stats["rows"] += n
        return buf["tok"][:n]

    def _run_decode_spec(self, rid: int):
        """One speculative step for the request decoding alone, or None (it decodes at T == 1 from now on)."""
        if self._graphs is None:
            raise RuntimeError("speculative decode needs the decode graphs' buckets (E4B_PAGED_GRAPHS)")
        budget = self._budgets.get(rid, 1 << 30)
        if getattr(self, "incremental_claims", False):
            # the verify writes positions base .. base + k_eff (alias rows reuse this slot's table row), and k_eff is
            # bounded by the request's budget (decode_budgets), so the claim stays inside the request's reservation
            k_eff = min(int(getattr(self.spec, "k", 0)), max(0, budget - 1))
            self._claim_through(self.slot_of[rid], self.pos_of[rid] - 1 + k_eff)
        out = self.spec.step(rid, budget)
        if out is None:
            return None
        self.tokens[rid].extend(out)
        self.pos_of[rid] += len(out)
        ctrl = getattr(self, "slot_controller", None)
        if ctrl is not None:
            ctrl.on_decode_step()
        return {rid: out}

    @torch.no_grad()
    def run_decode(self, rids):
        if not rids:
            return {}
        if self._la is not None and any(r["open"] for r in self._la["ring"]):
            raise RuntimeError("run_decode while a lookahead decode step is queued: collect_decode it first")
        spec = self.spec
        if spec is not None:
            if len(rids) == 1 and len(self.slot_of) == 1 and spec.eligible(rids[0]):
                got = self._run_decode_spec(rids[0])
                if got is not None:
                    return got
            for r in rids:                               # not alone any more: T == 1 for the rest of its life (B5)
                if spec.eligible(r):
                    spec.drop(r, "batched")
        if self._graphs is not None:
            return self._run_decode_bucketed(rids)
        tr = self.tracer
        self.ctx.mode = "decode"
        self.ctx.slots = [self.slot_of[r] for r in rids]
        ids = torch.tensor([[self.tokens[r][-1]] for r in rids],
                           dtype=torch.long, device=self.device)
        pos = torch.tensor([[self.pos_of[r] - 1] for r in rids],
                           dtype=torch.long, device=self.device)
        if tr is not None:
            tr.mark("dec_prep", event=True)
        prev = set_context(self.ctx)
        try:
            out = self.model(input_ids=ids, position_ids=pos,
                             use_cache=False)
        finally:
            set_context(prev)
        if tr is not None:
            tr.note(decode_rows=len(rids), bucket=None)
            tr.mark("dec_issue", event=True)
        toks = out.logits[:, -1].argmax(-1).tolist()
        if tr is not None:
            tr.mark("dec_sync")
        got: dict[int, int] = {}
        for rid, tok in zip(rids, toks):
            got[rid] = int(tok)
            self.tokens[rid].append(int(tok))
            self.pos_of[rid] += 1
        # production hook for the slot controller (engines.slot_controller):
        # fires between decode forwards, never concurrently with one
        ctrl = getattr(self, "slot_controller", None)
        if ctrl is not None:
            ctrl.on_decode_step()
        return got

    # ------------------------------------------ bucketed decode graphs --
    def enable_decode_graphs(self, buckets=DEFAULT_BUCKETS, *, capture: bool = True,
                             warmup: int = 2, verbose: bool = True) -> dict:
        """Capture one decode graph per bucket (#511); see the module docstring.

        Needs the KV cache built with ``scratch_slots >= max(buckets)`` and the
        fused batch KV append. The MoE engine must be capture-safe for a
        ``[b, 1]`` step (e.g. hot residency with device grouping, or the
        pipelined engine); a bucket whose capture raises is recorded, runs its
        padded step eagerly, and prints one ``DECODE_GRAPH ... EAGER`` line.
        ``capture=False`` runs every bucket eagerly on the same padded layout:
        the bitwise oracle for the replays. Returns ``{bucket: "graph" |
        "eager: <reason>"}``."""
        buckets = tuple(sorted({int(b) for b in buckets}))
        if not buckets or buckets[0] < 1:
            raise ValueError(f"buckets must be positive, got {buckets}")
        from .._rocm import rocm_refusal

        why = rocm_refusal("bucketed decode graphs (CUDA-graph capture and replay of Triton launches)")
        if why:
            raise RuntimeError(why)
        # SD2: the verify buckets are captured beside the decode buckets; plain steps never pick one (condition 4)
        captured = tuple(sorted(set(buckets) | set(self._verify_buckets)))
        scratch = list(getattr(self.kv, "scratch", ()) or ())
        if len(scratch) < captured[-1]:
            raise ValueError(
                f"decode graphs need scratch_slots >= the largest bucket ({captured[-1]}); "
                f"the KV cache has {len(scratch)} -- build Fp8PagedKV(..., scratch_slots="
                f"{captured[-1]})")
        kv, dev = self.kv, self.device
        if self.linear_state is not None:
            # a hybrid's per-slot linear state is gathered and scattered through the bucket's device selector
            # (linear_state._bucket_selector); a graph cannot allocate the pool, so warm it first, then freeze it
            self._warm_linear_state(scratch[0])
            self.linear_state.frozen = True
        kv.graph_mode_init(seq=scratch[0], upto_tokens=kv.bt)
        self._la = None
        self._buckets = buckets
        self._bufs, self._graphs, self.graph_status = {}, {}, {}
        self.graph_stats = {b: {"replays": 0, "eager_steps": 0, "rows": 0, "pad_rows": 0}
                            for b in captured}
        self._graph_ready = set()
        for b in captured:
            st = kv.graph_bucket(b)
            buf = {"ids": torch.zeros(b, 1, dtype=torch.long, device=dev),
                   "pos": torch.zeros(b, 1, dtype=torch.long, device=dev),
                   "tok": torch.zeros(b, dtype=torch.long, device=dev),
                   "st": st, "slots": scratch[:b]}
            self._bufs[b] = buf
            self._graphs[b] = None
            if not capture:
                self.graph_status[b] = "eager: capture=False"
                continue
            try:
                self._graphs[b] = self._capture_bucket(b, warmup)
                self.graph_status[b] = "graph"
            except Exception as e:           # a failed capture is data, not a crash
                torch.cuda.synchronize(dev)
                self.graph_status[b] = f"eager: {type(e).__name__}: {str(e)[:160]}"
            if verbose:
                s = self.graph_status[b]
                print(f"DECODE_GRAPH bucket={b} " + ("captured" if s == "graph" else f"EAGER ({s})")
                      + (" (verify only)" if b not in buckets else ""), flush=True)
        kv.reset_scratch_lens()
        if self.spec is not None and capture:
            if self.spec.state:
                # the post-verify capture writes the draft's live state (drafts, last token, cache entries)
                raise RuntimeError("the post-verify graphs cannot be captured while a request speculates")
            # SD2: the post-verify step (accept, length, draft) per verified row count; a failure leaves it eager.
            # Kept apart from graph_status, whose keys are buckets.
            self.spec_graph_status = {}
            for n in self._verify_buckets:
                try:
                    self.spec.capture_post(n)
                    self.spec_graph_status[n] = "graph"
                except Exception as e:       # noqa: BLE001 -- recorded, like a bucket's
                    torch.cuda.synchronize(dev)
                    self.spec_graph_status[n] = f"eager: {type(e).__name__}: {str(e)[:160]}"
        return dict(self.graph_status)

    @torch.no_grad()
    def _warm_linear_state(self, slot: int) -> None:
        """Allocate every linear layer's pooled state before a graph is captured, by one eager one-token prefill on a
        scratch slot; its staged K/V and its state are discarded."""
        from experts4bit_qlora.engines.linear_state import linear_layers
        pool = self.linear_state
        want = linear_layers(self.model.config)
        if pool.allocated(want):
            return
        self._mode(True)
        self.ctx.mode, self.ctx.slots = "prefill", [slot]
        prev = set_context(self.ctx)
        try:
            self.model(input_ids=torch.zeros(1, 1, dtype=torch.long, device=self.device),
                       position_ids=torch.zeros(1, 1, dtype=torch.long, device=self.device), use_cache=False)
        finally:
            set_context(prev)
            self.ctx.drop(slot)
            self.ctx.mode, self.ctx.slots = "decode", []
            self._mode(False)
        pool.reset(slot)
        if not pool.allocated(want):
            raise RuntimeError(f"warming the linear-state pool left layers {sorted(set(want) - set(pool.conv))} "
                               "unallocated")

    def disable_decode_graphs(self) -> None:
        if self._la is not None and any(r["open"] for r in self._la["ring"]):
            raise RuntimeError("disable_decode_graphs while a lookahead decode step is queued")
        self._la = None
        self._graphs = None
        self.kv.graph_bucket_unbind()

    def _padded_step(self, b: int) -> None:
        """The step a bucket's graph captures, on its static buffers."""
        buf = self._bufs[b]
        out = self.model(input_ids=buf["ids"], position_ids=buf["pos"], use_cache=False)
        buf["tok"].copy_(out.logits[:, -1].argmax(-1))

    def _bind(self, b: int, slots) -> None:
        self.kv.graph_bucket_bind(self._bufs[b]["st"], slots)
        self.ctx.mode = "decode"
        self.ctx.slots = list(slots)

    def _capture_bucket(self, b: int, warmup: int):
        buf, kv = self._bufs[b], self.kv
        slots = buf["slots"]                  # scratch only: nothing live moves
        buf["ids"].zero_()
        buf["pos"].zero_()
        kv.graph_bucket_load(buf["st"], slots)
        self._bind(b, slots)
        prev = set_context(self.ctx)
        try:
            side = torch.cuda.Stream(self.device)
            side.wait_stream(torch.cuda.current_stream(self.device))
            with torch.cuda.stream(side):
                for _ in range(max(1, warmup)):
                    kv.reset_scratch_lens()
                    self._padded_step(b)
            torch.cuda.current_stream(self.device).wait_stream(side)
            torch.cuda.synchronize(self.device)
            kv.reset_scratch_lens()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                self._padded_step(b)
            torch.cuda.synchronize(self.device)
            return g
        finally:
            set_context(prev)
            kv.graph_bucket_unbind()
            kv.reset_scratch_lens()

    def _claim_through(self, slot: int, write_pos: int) -> None:
        """Incremental claims (``incremental_claims``, lever G1, ``bench/kv-pool-g/DESIGN.md``): before a step the slot
        owns every block through the one ``write_pos`` lands in. The claim's table write is an async H2D copy into
        ``kv._bt_all`` queued on this stream ahead of the step's gather and replay, so the graph reads it."""
        last = min(self.kv.blocks_per_seq - 1, int(write_pos) // self.kv.bt)
        if self.bulk_kv:
            self.kv.claim_blocks(slot, last, self.pool_layers)
        else:
            for layer in self.pool_layers:
                self.kv._ensure_blocks(layer, slot, last)
        self._graph_ready.add(slot)

    def _claim_step(self, write_pos: dict) -> None:
        """:meth:`_claim_through` for every slot of one step at once: one table write (``Fp8PagedKV.claim_many``) under
        bulk KV, so a step whose slots cross block edges together costs one copy, not one per slot (and never waits on
        the staging ring behind a queued step)."""
        if not self.bulk_kv:
            for slot, pos in write_pos.items():
                self._claim_through(slot, pos)
            return
        cap = self.kv.blocks_per_seq - 1
        self.kv.claim_many({slot: min(cap, int(pos) // self.kv.bt) for slot, pos in write_pos.items()}, self.pool_layers)
        self._graph_ready.update(write_pos)

    def _claim_all_last(self) -> int:
        """The last block a claim-all slot claims: every block it can reach. A pool smaller than its slots can reach
        (``Fp8PagedKV(pool_rows=...)``, lever G3) refuses: only incremental claims may draw on it."""
        if getattr(self.kv, "shared_pool", False):
            raise RuntimeError(f"the KV pool holds {self.kv._n_rows} rows, fewer than its slots can reach "
                               f"({self.kv.claim_all_rows}): claim-all would run it dry; it needs incremental_claims")
        return self.kv.blocks_per_seq - 1

    def _ensure_graph_ready(self, slot: int) -> None:
        """A graph step addresses KV blocks from the device table and never
        allocates, so every block a decoding slot can reach is claimed once,
        when the slot first decodes (released again by ``free_slot``). Under
        ``incremental_claims`` the per-step claim is :meth:`_claim_through`."""
        if getattr(self, "incremental_claims", False):
            return
        if slot in self._graph_ready:
            return
        last = self._claim_all_last()
        if self.bulk_kv:
            self.kv.claim_blocks(slot, last, self.pool_layers)
            self._kv_counts["ready_bulk"] += 1
        else:
            for layer in self.pool_layers:
                self.kv._ensure_blocks(layer, slot, last)
            self._kv_counts["ready_layers"] += 1
        self._graph_ready.add(slot)

    def _run_decode_bucketed(self, rids):
        got: dict[int, int] = {}
        kv = self.kv
        tr = self.tracer
        if getattr(self, "incremental_claims", False):
            # ONE claim for the whole step, every piece's slots, before the first piece: one staging buffer and one
            # table write, so a step wider than the largest bucket never claims per piece. Its first decodes are
            # counted here; the claim marks the slots ready, so the per-piece count below adds none
            if tr is not None:
                tr.count("first_decodes", sum(1 for r in rids if self.slot_of[r] not in self._graph_ready))
            self._claim_step({self.slot_of[r]: self.pos_of[r] - 1 for r in rids})
        for chunk in chunk_rows(rids, self._buckets[-1]):
            n = len(chunk)
            b = bucket_for(n, self._buckets)
            buf = self._bufs[b]
            slots = [self.slot_of[r] for r in chunk]
            if tr is not None:
                tr.count("first_decodes", sum(1 for s_ in slots if s_ not in self._graph_ready))
                tr.count("dec_pieces")             # > 1: the step ran as consecutive replays of the largest bucket
            if getattr(self, "incremental_claims", False):
                pass                               # the step's claim was made before the first piece
            else:
                for s_ in slots:
                    self._ensure_graph_ready(s_)
            if tr is not None:
                tr.mark("dec_ready")
            pad = b - n
            all_slots = slots + kv.scratch[:pad]
            ids = [self.tokens[r][-1] for r in chunk] + [0] * pad
            pos = [self.pos_of[r] - 1 for r in chunk] + [0] * pad
            buf["ids"].copy_(torch.tensor(ids, dtype=torch.long).view(b, 1), non_blocking=True)
            buf["pos"].copy_(torch.tensor(pos, dtype=torch.long).view(b, 1), non_blocking=True)
            kv.graph_bucket_load(buf["st"], all_slots)
            if tr is not None:
                tr.mark("dec_prep", event=True)
            g = self._graphs[b]
            stats = self.graph_stats[b]
            if g is not None:
                g.replay()
                stats["replays"] += 1
            else:
                self._bind(b, all_slots)
                prev = set_context(self.ctx)
                try:
                    self._padded_step(b)
                finally:
                    set_context(prev)
                    kv.graph_bucket_unbind()
                stats["eager_steps"] += 1
            kv.graph_bucket_publish(buf["st"])     # E4B_KV_STEP_SELECT: the step's +1, every layer at once
            stats["rows"] += n
            stats["pad_rows"] += pad
            if tr is not None:
                tr.count("decode_rows", n)
                tr.note(bucket=b)
                tr.mark("dec_issue", event=True)
            toks = buf["tok"][:n].tolist()
            if tr is not None:
                tr.mark("dec_sync")
            for rid, slot, tok in zip(chunk, slots, toks):
                got[rid] = int(tok)
                self.tokens[rid].append(int(tok))
                self.pos_of[rid] += 1
                for layer in self.pool_layers:
                    kv._seen[layer][slot] += 1     # the host mirror of the device append
            if tr is not None:
                tr.mark("dec_mirror")
        ctrl = getattr(self, "slot_controller", None)
        if ctrl is not None:
            ctrl.on_decode_step()
        return got

    # ------------------------------------------------ decode lookahead (P118) --
    # run_decode reads a step's tokens back before it returns, so the GPU idles while the host mirrors them, the
    # scheduler emits and retires, and the next step is planned and its inputs copied in. The two entry points below
    # split that step for the serving scheduler (ContinuousScheduler(lookahead=True), E4B_PAGED_DECODE_LOOKAHEAD):
    # issue_decode enqueues a step without waiting, its input ids gathered on the device from a table of each slot's
    # newest token (which the previous issue wrote), and collect_decode reads a queued step's tokens back through a
    # pinned buffer and an event. Issuing step t+1 before collecting step t keeps a step queued while the host works.
    # The device inputs are run_decode's (same ids, positions, slots and padding), so the tokens are too.
    # run_decode keeps its contract and refuses while a lookahead step is queued.

    def _lookahead_state(self) -> dict:
        la = self._la
        if la is None:
            if self._graphs is None:
                raise RuntimeError("the decode lookahead needs bucketed decode graphs (enable_decode_graphs)")
            kv, dev = self.kv, self.device
            cuda = dev.type == "cuda"
            rows = int(kv.B) + self._buckets[-1]     # every piece of one step, padded, at disjoint offsets

            def host(n):
                t = torch.zeros(n, dtype=torch.long)
                return t.pin_memory() if cuda else t

            la = self._la = {
                # each slot's newest token on the device; the scratch slots' entries stay 0, the padding rows' ids
                "tok": torch.zeros(int(kv.B) + len(kv.scratch), dtype=torch.long, device=dev),
                # slot -> the request's token count with the token in "tok" counted, and that token's value once
                # collected (its host shadow): with nothing in flight, a row whose count or newest token differs from
                # these was edited on the host and is resynced from it
                "dev_len": {},
                "dev_tok": {},
                "inflight": {},      # rid -> steps issued and not yet collected
                # host staging for two queued steps: slot ids, positions, tokens read back; reused only once collected
                "ring": [{"slots": host(rows), "pos": host(rows), "out": host(rows), "event": None, "open": False}
                         for _ in range(2)],
                "next": 0, "cuda": cuda,
            }
        return la

    @torch.no_grad()
    def issue_decode(self, rids) -> dict:
        """Enqueue one decode step for ``rids`` and return without waiting for it; :meth:`collect_decode` reads its
        tokens. A row's input is its newest token, which may still be in flight: its position counts the queued steps
        and its id is gathered on the device. A row whose newest token is known only on the host (its first decode, or
        after a host edit of ``tokens`` with nothing queued: appended, or its last token rewritten in place) is written
        into the device table first. With a step queued for the row, an edit that changes its length is refused and
        an in-place rewrite cannot be seen (it is not supported). At most two steps may be queued. ``tokens``, ``pos_of`` and the KV host mirrors advance when a step is collected, as
        :meth:`run_decode` advances them."""
        if not rids:
            raise ValueError("issue_decode: no rows")
        if getattr(self, "slot_controller", None) is not None:
            raise RuntimeError("the decode lookahead does not run with a slot controller: it acts between decode "
                               "forwards, and under the lookahead one is always queued")
        la = self._lookahead_state()
        ring = la["ring"][la["next"]]
        if ring["open"]:
            raise RuntimeError("issue_decode: two decode steps are already queued; collect_decode the older one first")
        kv, tr = self.kv, self.tracer
        tok, dev_len, inflight = la["tok"], la["dev_len"], la["inflight"]
        for r in rids:                         # refuse before anything is queued
            k = inflight.get(r, 0)
            s_ = self.slot_of[r]
            if k and dev_len.get(s_) != len(self.tokens[r]) + k:
                raise RuntimeError(f"rid {r} has a decode step in flight but slot {s_}'s device token is not its "
                                   f"newest (tokens edited while a step was queued?)")
        if ring["event"] is not None:
            ring["event"].synchronize()        # collected already, so its copies have run: this never waits
        pieces, off = [], 0
        if getattr(self, "incremental_claims", False):
            # ONE claim per step over every piece's slots, before the first piece. Per piece, the claims took
            # alternate buffers of the two-buffer staging ring, so the next step's second piece waited on an event
            # recorded after this step's first replay: the overlap the lookahead exists for was lost
            if tr is not None:
                tr.count("first_decodes", sum(1 for r in rids if self.slot_of[r] not in self._graph_ready))
            self._claim_step({self.slot_of[r]: self.pos_of[r] - 1 + inflight.get(r, 0) for r in rids})
        for chunk in chunk_rows(rids, self._buckets[-1]):
            n = len(chunk)
            b = bucket_for(n, self._buckets)
            buf = self._bufs[b]
            st = buf["st"]
            slots = [self.slot_of[r] for r in chunk]
            if tr is not None:
                tr.count("first_decodes", sum(1 for s_ in slots if s_ not in self._graph_ready))
                tr.count("dec_pieces")
            if getattr(self, "incremental_claims", False):
                pass                               # the step's claim was made before the first piece
            else:
                for s_ in slots:
                    self._ensure_graph_ready(s_)
            if tr is not None:
                tr.mark("dec_ready")
            pad = b - n
            pos = []
            for r, s_ in zip(chunk, slots):
                k = inflight.get(r, 0)
                have = len(self.tokens[r]) + k      # the row's tokens once its queued steps land
                newest = self.tokens[r][-1]
                if dev_len.get(s_) != have or (not k and la["dev_tok"].get(s_) != newest):
                    tok.narrow(0, s_, 1).fill_(newest)       # known on the host only (k == 0, checked above)
                    dev_len[s_] = have
                    la["dev_tok"][s_] = newest
                pos.append(self.pos_of[r] - 1 + k)
            ph = ring["pos"][off:off + b]
            ph.copy_(torch.as_tensor(pos + [0] * pad, dtype=torch.long))
            kv.graph_bucket_load(st, slots + kv.scratch[:pad], staging=ring["slots"][off:off + b])
            torch.index_select(tok, 0, st["slot_l"], out=buf["ids"].view(b))
            buf["pos"].copy_(ph.view(b, 1), non_blocking=True)
            if tr is not None:
                tr.mark("dec_prep", event=True)
            g = self._graphs[b]
            stats = self.graph_stats[b]
            if g is not None:
                g.replay()
                stats["replays"] += 1
            else:
                self._bind(b, slots + kv.scratch[:pad])
                prev = set_context(self.ctx)
                try:
                    self._padded_step(b)
                finally:
                    set_context(prev)
                    kv.graph_bucket_unbind()
                stats["eager_steps"] += 1
            kv.graph_bucket_publish(st)
            tok.index_copy_(0, st["slot_l"][:n], buf["tok"][:n])     # the next step's ids, never via the host
            ring["out"][off:off + n].copy_(buf["tok"][:n], non_blocking=True)
            stats["rows"] += n
            stats["pad_rows"] += pad
            for r, s_ in zip(chunk, slots):
                inflight[r] = inflight.get(r, 0) + 1
                dev_len[s_] = len(self.tokens[r]) + inflight[r]
            if tr is not None:
                tr.count("decode_rows", n)
                tr.note(bucket=b, lookahead=1)
                tr.mark("dec_issue", event=True)
            pieces.append((list(chunk), slots, off, n))
            off += b
        if la["cuda"]:
            ev = torch.cuda.Event()
            ev.record()
            ring["event"] = ev
        ring["open"] = True
        la["next"] ^= 1
        return {"ring": ring, "pieces": pieces}

    def collect_decode(self, handle) -> dict:
        """Wait for a step :meth:`issue_decode` queued and return ``{rid: token}``, advancing ``tokens``, ``pos_of`` and
        the KV host mirrors as :meth:`run_decode` does. Steps are collected in the order they were issued."""
        ring = handle["ring"]
        if self._la is None or not ring["open"]:
            raise RuntimeError("collect_decode: this step was already collected")
        older = self._la["ring"][self._la["next"]]
        if older is not ring and older["open"]:
            raise RuntimeError("collect_decode: an older queued step must be collected first")
        tr = self.tracer
        if ring["event"] is not None:
            ring["event"].synchronize()
        if tr is not None:
            tr.mark("dec_sync")
        kv, inflight, got = self.kv, self._la["inflight"], {}
        for chunk, slots, off, n in handle["pieces"]:
            for rid, slot, t in zip(chunk, slots, ring["out"][off:off + n].tolist()):
                left = inflight[rid] - 1
                if left:
                    inflight[rid] = left
                else:
                    del inflight[rid]
                got[rid] = int(t)
                self.tokens[rid].append(int(t))
                self.pos_of[rid] += 1
                self._la["dev_tok"][slot] = int(t)  # the device table's value once nothing newer is queued
                for layer in self.pool_layers:
                    kv._seen[layer][slot] += 1     # the host mirror of the device append
        ring["open"] = False
        if tr is not None:
            tr.mark("dec_mirror")
        return got

    # ------------------------------------------ first-chunk prefill graph --
    def enable_prefill_graph(self, T: int, *, warmup: int = 2, seed: int = 1689,
                             require_headroom: bool = False) -> dict:
        """Capture one CUDA graph of a ``T``-token first-chunk prefill forward and serve first chunks of exactly
        ``T`` tokens from it (see the module docstring). Refuses with :class:`PrefillGraphRefused` naming the reason:

        * no CUDA device;
        * an AMD GPU (a ROCm build of torch): capture and replay have not run on AMD;
        * ``hot_residency.DEVICE_GROUPING`` off: host grouping syncs inside the forward;
        * a linear-attention (hybrid) model: its per-slot state is mutated by prefill;
        * a capture that raises (a host sync inside the forward invalidates it);
        * a capture that does not stage K/V for every pool layer;
        * a failed startup check (:meth:`_check_prefill_graph`). The check runs only after the capture's scope has
          returned and the allocator has been churned, so a tensor the graph reads but nothing keeps fails it;
        * with ``require_headroom`` (``E4B_PAGED_PREFILL_GRAPH=auto``), too little memory left. The graph keeps its
          forward's working set in a private pool for its life (SC2b measured +3.3 GiB on Qwen3-30B-A3B int4), where
          an eager prefill only borrows it, and a later chunk still runs eagerly and needs that working set again. So
          ``auto`` stands down when the device's free memory after capture is below the pool's size. With ``bulk_kv``
          the bulk flush's bound (``Fp8PagedKV.append_prompt_peak_bytes`` at the slot's capacity) is added: it
          allocates on top of the pool.

        Returns :meth:`prefill_graph_stats`."""
        from . import hot_residency

        T = int(T)
        why = None
        from .._rocm import rocm_refusal

        if self.device.type != "cuda":
            why = f"needs a CUDA device, not {self.device}"
        elif amd := rocm_refusal("the prefill graph (CUDA-graph capture of the prefill forward)"):
            why = amd
        elif T < 1:
            why = f"T must be positive, got {T}"
        elif not hot_residency.DEVICE_GROUPING[0]:
            why = ("device grouping is off: host grouping syncs inside the forward (serve_paged turns it on with "
                   "decode graphs at max_seqs > 1 on the all-vram placement)")
        elif self.linear_state is not None:
            why = "a hybrid model's linear-attention state is per slot, and prefill mutates it"
        if why:
            raise PrefillGraphRefused(why)
        vocab = _output_width(self.model)
        gen = torch.Generator().manual_seed(seed)
        prompts = [torch.randint(0, vocab, (1, T), generator=gen) for _ in range(2)]
        pg = self._capture_prefill_graph(T, prompts[0], warmup)
        self._check_prefill_graph(pg, prompts)
        pg["free_after_bytes"] = int(torch.cuda.mem_get_info(self.device)[0])
        if require_headroom and pg["pool_bytes"] <= 0:
            del pg
            torch.cuda.empty_cache()
            raise PrefillGraphRefused("memory: the graph's private pool could not be measured (no allocator segment "
                                      "carries its pool id), so the headroom rule cannot be applied")
        # with bulk KV bookkeeping, a prompt's flush allocates on top of the graph's private pool (nothing the
        # forward returned is reusable while the pool holds it): count its bound, at the slot's capacity
        pg["bulk_flush_bytes"] = (self.kv.append_prompt_peak_bytes(self.kv.blocks_per_seq * self.kv.bt, self.pool_layers)
                                  if self.bulk_kv and hasattr(self.kv, "append_prompt_peak_bytes") else 0)
        from ..serve_recipe import prefill_graph_headroom_bytes      # the one rule the shared pool's sizing holds back
        if require_headroom and pg["free_after_bytes"] < prefill_graph_headroom_bytes(pg["pool_bytes"], pg["bulk_flush_bytes"]):
            pool_mib, free_mib = pg["pool_bytes"] / 2**20, pg["free_after_bytes"] / 2**20
            flush_mib = pg["bulk_flush_bytes"] / 2**20
            del pg
            torch.cuda.empty_cache()
            raise PrefillGraphRefused(
                f"memory: the graph's private pool holds {pool_mib:.0f} MiB for its life and {free_mib:.0f} MiB is "
                f"free after capture; a later chunk's eager forward needs about that working set again"
                + (f", and the bulk KV flush up to {flush_mib:.0f} MiB more" if flush_mib else ""))
        self._prefill_graph = pg
        self._pg_refused = None
        self._pg_stats = {"replays": 0, "eager_chunks": 0, "eager_reasons": {"later_chunk": 0, "short_chunk": 0}}
        return self.prefill_graph_stats()

    _PG_KEY = -1      # the staging slot of the capture and the startup check: a first chunk reads no slot

    def _staged_under_key(self) -> dict:
        return {lay: (buf[0][-1], buf[1][-1]) for (lay, s), buf in self.ctx.staging.items() if s == self._PG_KEY}

    def _prefill_scope(self):
        """Enter prefill mode on the capture key; returns the restore callable."""
        ctx, saved_slots = self.ctx, self.ctx.slots
        self._mode(True)
        ctx.mode, ctx.slots = "prefill", [self._PG_KEY]
        prev = set_context(ctx)
        if self.spec is not None:
            self.spec.aux.mode = ("prefill", 0)      # SD2: a first chunk's states at positions 0..T-1, in the graph

        def restore():
            ctx.drop(self._PG_KEY)
            set_context(prev)
            ctx.slots, ctx.mode = saved_slots, "decode"
            self._mode(False)
            if self.spec is not None:
                self.spec.aux.mode = "decode"
        return restore

    def _capture_prefill_graph(self, T: int, first_ids, warmup: int) -> dict:
        """Warm, then capture. Everything the graph reads that was allocated outside the capture -- the input ids and
        the positions -- is returned with it and kept: a CUDA graph holds no reference to what it reads."""
        dev, ctx = self.device, self.ctx
        ids = first_ids.to(dev).clone()
        pos = torch.arange(T, device=dev)[None]
        restore = self._prefill_scope()
        try:
            with torch.no_grad():
                side = torch.cuda.Stream(dev)
                side.wait_stream(torch.cuda.current_stream(dev))
                with torch.cuda.stream(side):
                    for _ in range(max(1, warmup)):
                        ctx.drop(self._PG_KEY)
                        self._prefill_forward(ids, pos)
                torch.cuda.current_stream(dev).wait_stream(side)
                torch.cuda.synchronize(dev)
                ctx.drop(self._PG_KEY)
                g = torch.cuda.CUDAGraph()
                try:
                    with torch.cuda.graph(g):
                        out = self._prefill_forward(ids, pos)
                except Exception as e:  # noqa: BLE001 -- any capture failure is a refusal, with its reason
                    raise PrefillGraphRefused(f"the {T}-token prefill forward did not capture "
                                              f"({type(e).__name__}: {str(e)[:300]})") from e
                staged = self._staged_under_key()
        finally:
            restore()
        if sorted(staged) != sorted(self.pool_layers):
            raise PrefillGraphRefused(f"the capture staged K/V for layers {sorted(staged)}, not the pool's "
                                      f"{sorted(self.pool_layers)}")
        return {"T": T, "graph": g, "ids": ids, "pos": pos, "logits": out.logits, "staged": staged,
                "pool_bytes": self._private_pool_bytes(g)}

    @staticmethod
    def _private_pool_bytes(graph) -> int:
        """Bytes of the device segments in ``graph``'s private memory pool, from the allocator's own snapshot. The
        growth of ``memory_reserved`` across a capture undercounts it -- to 0 once an earlier graph's freed segments
        are recycled (seen on the A2000) -- and an undercount would let the headroom rule wave through a graph that
        should stand down."""
        pid = tuple(graph.pool())
        return sum(int(s["total_size"]) for s in torch.cuda.memory_snapshot()
                   if tuple(s.get("segment_pool_id") or ()) == pid)

    @staticmethod
    def _churn_allocator(dev) -> None:
        """Hand freed blocks of many sizes out again, filled with a sentinel, then free them: a block the graph reads
        but nothing keeps now holds garbage."""
        held = [torch.full((n,), 1 << 40, dtype=torch.long, device=dev)
                for n in (16, 64, 128, 256, 512, 1024, 4096, 16384, 65536) for _ in range(48)]
        del held

    def _check_prefill_graph(self, pg: dict, prompts) -> None:
        """The startup check, run after the capture's scope has returned and the allocator has been churned. On two
        seeded prompts each replay must equal an eager forward bit for bit, in the logits and in every pool layer's
        staged K/V; the two prompts' eager logits must differ (a check whose prompts gave identical outputs could
        not tell a stale graph from a live one)."""
        dev, ctx = self.device, self.ctx
        self._churn_allocator(dev)
        refs = []
        restore = self._prefill_scope()
        try:
            with torch.no_grad():
                for p in prompts:
                    ctx.drop(self._PG_KEY)
                    o = self._prefill_forward(p.to(dev), torch.arange(pg["T"], device=dev)[None])
                    refs.append((o.logits.clone(),
                                 {lay: (k.clone(), v.clone()) for lay, (k, v) in self._staged_under_key().items()}))
        finally:
            restore()
        if torch.equal(refs[0][0], refs[1][0]):
            raise PrefillGraphRefused("the startup check's two prompts gave identical logits, so it could not tell a "
                                      "stale graph from a live one")
        self._churn_allocator(dev)
        for i in (1, 0):          # the second prompt first: the graph last saw the first
            pg["ids"].copy_(prompts[i])
            pg["graph"].replay()
            rl, rkv = refs[i]
            bad = [lay for lay in rkv if not (torch.equal(pg["staged"][lay][0], rkv[lay][0])
                                              and torch.equal(pg["staged"][lay][1], rkv[lay][1]))]
            if not torch.equal(pg["logits"], rl) or bad:
                d = (pg["logits"].float() - rl.float()).abs().max().item()
                raise PrefillGraphRefused(f"the startup check's replay of prompt {i} differs from the eager forward "
                                          f"(logits max abs {d:.3g}; K/V layers {bad})")

    def _replay_prefill_graph(self, rid: int, slot: int, take: int, done: bool):
        pg = self._prefill_graph
        # the same host-to-device copy the eager path makes, into the graph's input
        pg["ids"].copy_(torch.tensor(self.tokens[rid][:take], dtype=torch.long)[None])
        pg["graph"].replay()
        self.ctx.drop(slot)
        for layer, (k, v) in pg["staged"].items():
            # the next replay overwrites the graph's outputs: a prompt that continues keeps a copy. A prompt that
            # completes is flushed into the pool in this call, before any other replay.
            self.ctx.staging[(layer, slot)] = ([k], [v]) if done else ([k.clone()], [v.clone()])
        self._pg_stats["replays"] += 1
        return pg["logits"]

    def _note_eager(self, reason: str) -> None:
        s = self._pg_stats
        s["eager_chunks"] += 1
        s["eager_reasons"][reason] += 1

    def prefill_graph_stats(self) -> dict:
        """``{"status": "off"}``; ``{"status": "refused", "why"}`` when an ``auto`` graph stood down
        (:meth:`note_prefill_graph_refused`); or ``{"status": "on", "T", "replays", "eager_chunks", "eager_reasons",
        "pool_mib", "free_after_mib"}``: first chunks served from the graph, chunks that ran eagerly with the reason
        (``later_chunk``: a chunk after the first; ``short_chunk``: a first chunk of another length), the graph's
        private pool, and the device's free memory after capture. The startup check's replays are not counted."""
        pg = self._prefill_graph
        if pg is None:
            return {"status": "refused", "why": self._pg_refused} if self._pg_refused else {"status": "off"}
        s = self._pg_stats
        return {"status": "on", "T": pg["T"], "replays": s["replays"],
                "eager_chunks": s["eager_chunks"], "eager_reasons": dict(s["eager_reasons"]),
                "pool_mib": round(pg.get("pool_bytes", 0) / 2**20), "free_after_mib": round(pg.get("free_after_bytes", 0) / 2**20),
                "bulk_flush_mib": round(pg.get("bulk_flush_bytes", 0) / 2**20)}

    def note_prefill_graph_refused(self, why: str) -> None:
        """Record that an ``auto`` prefill graph stood down, and why: prefill stays eager, and the stats say so."""
        self._prefill_graph = None
        self._pg_refused = str(why)

    def disable_prefill_graph(self) -> None:
        self._prefill_graph = None

    def kv_bookkeeping_stats(self) -> dict:
        """``bulk`` (``E4B_PAGED_BULK_KV``) and how many requests took each path: prompt flushes per layer
        (``flush_layers``) or in bulk (``flush_bulk``), of which ``flush_bulk_fallback`` went through the bulk call but
        were written per layer inside it (:meth:`Fp8PagedKV.append_prompt`'s fallback); a graphed slot's block claims
        at its first decode, per layer (``ready_layers``) or in bulk (``ready_bulk``), or already made at its flush
        (``ready_at_flush``)."""
        return {"bulk": self.bulk_kv, **self._kv_counts}

    def free_slot(self, rid: int) -> None:
        if self.spec is not None:
            self.spec.drop(rid, "freed")
        if self._la is not None:
            if self._la["inflight"].get(rid):
                raise RuntimeError(f"free_slot: rid {rid} has a decode step in flight; collect it first")
            self._la["dev_len"].pop(self.slot_of.get(rid), None)
            self._la["dev_tok"].pop(self.slot_of.get(rid), None)
        slot = self.slot_of.pop(rid, None)
        if self._graphs is not None:
            self._graph_ready.discard(slot)
        self.pos_of.pop(rid, None)
        self.tokens.pop(rid, None)
        if slot is not None:
            self.ctx.drop(slot)      # any staging from an aborted prefill
            self._reset(slot)
            if self.linear_state is not None:
                self.linear_state.reset(slot)
