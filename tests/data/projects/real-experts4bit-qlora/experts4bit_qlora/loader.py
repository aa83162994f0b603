"""Streaming 4-bit loader for fused-MoE checkpoints (OLMoE, Qwen3-MoE / Qwen3.5-MoE, Gemma-4, GraniteMoe).

Streams the checkpoint tensor-by-tensor straight onto the GPU, quantizing each fused expert stack
to NF4 on the way and dropping the bf16 source immediately, so the full bf16 model is never
materialized in CPU *or* GPU memory. Each layer's fused ``experts`` module is swapped for a frozen
4-bit :class:`Experts4bit` base wrapped in trainable per-expert :class:`ExpertsLoRA` adapters.

Supports SwiGLU fused-MoE architectures. Experts may be stored on disk either **per-expert**
(``...experts.{e}.{gate,up,down}_proj.weight`` — OLMoE, Qwen3-MoE) or already **fused**
(``...experts.{gate_up,down}_proj`` — Gemma-4, GraniteMoe); both are handled. The experts module
sits under the MLP for OLMoE/Qwen3, directly on the layer (beside a parallel dense MLP) for
Gemma-4, and under a ``block_sparse_moe`` block for GraniteMoe — whose Hub checkpoints use legacy
tensor spellings (``input_linear``/``output_linear``, see :data:`LEGACY_KEY_RENAMES`). Requires
transformers>=5.0.

**The checkpoint prefix is not the module prefix.** For most families they coincide, and this
loader used to build one string and use it for both. The mixtral family (mixtral, phimoe and the
minimax aliases) is where that breaks: released checkpoints store experts under
``model.layers.{L}.block_sparse_moe.experts.{e}.{w1,w3,w2}.weight`` while transformers >= 5 builds
them at ``model.layers.{L}.mlp.experts``. A module-side prefix therefore matched no checkpoint key,
every MoE layer looked dense, and the load ended in the zero-expert-stacks guard. The two sides are
now sourced separately from the convention — ``expert_re`` parses the checkpoint spelling,
``fused_prefix`` names the module placement — so admitting a family is a convention question, not a
new read path. See :mod:`experts4bit_qlora.arch.moe_conventions`.
"""

import json
import os
import re
import struct

from accelerate import init_empty_weights
from huggingface_hub import snapshot_download
from safetensors import safe_open
import torch
from transformers import AutoConfig, AutoModelForCausalLM
from transformers.activations import ACT2FN

from collections.abc import Mapping

from . import Experts4bit, ExpertsNbit, normalize_quant_type
from .arch.deepseek_v4 import DEFAULT_SWIGLU_LIMIT, DeepseekV4Experts4bit
from .arch.deepseek_v4 import rename_checkpoint_key as rename_deepseek_v4_key
from .formats.fp8_blocks import convert_to_fp8_blocks
from .arch.gptoss import GPTOSS_ALPHA, GPTOSS_LIMIT, GptOssExperts4bit
from .lora import EpilogueContractError, ExpertsLoRA, assert_stock_epilogue
from .formats.mxfp4 import dequantize_mxfp4
from .engines.offload import enable_expert_offload, enable_inference_prefetch
from .util import log

# model_type -> experts submodule path relative to `model.layers.{i}`.
# OLMoE/Qwen3 nest experts under the MLP; Gemma-4 puts them beside a parallel dense MLP; GraniteMoe
# nests them under a `block_sparse_moe` block (router + experts; no parallel dense branch).
SUPPORTED_ARCHITECTURES = {
    "olmoe": "mlp.experts",
    "qwen3_moe": "mlp.experts",
    "qwen3_5_moe": "mlp.experts",
    "qwen3_5_moe_text": "mlp.experts",  # the native text CausalLM built from the composite's text_config
    "gpt_oss": "mlp.experts",  # GPT-OSS: on-disk MXFP4 blocks/scales + per-proj biases (see gptoss.py)
    "gemma4": "experts",  # multimodal top-level config
    "gemma4_text": "experts",  # the text tower (what a text-only QLoRA loads)
    "granitemoe": "block_sparse_moe.experts",  # IBM Granite MoE (granite-3.0-*-a*m, PowerMoE-3b)
    # The same convention's two aliases, admitted 2026-09-21 (e4b#648). They are the
    # SAME expert surface as `granitemoe` -- identical pre-fused `input_linear` /
    # `output_linear` spelling and a byte-identical upstream converter -- differing
    # only OUTSIDE the experts: `granitemoeshared` adds a per-layer dense
    # `shared_mlp`, and `granitemoehybrid` additionally replaces most attention
    # layers with Mamba. Both are passthrough for this loader.
    "granitemoehybrid": "block_sparse_moe.experts",   # granite-4.0-h-* (Mamba/attention hybrid)
    "granitemoeshared": "block_sparse_moe.experts",   # granite MoE + a dense shared_mlp
    # Kimi K3 (`KimiK3ForConditionalGeneration`, DeepSeek-V3 lineage): per-expert
    # MXFP4 under `block_sparse_moe.experts.{e}.w{1,3,2}` — see K3_PER_EXPERT_MXFP4.
    "kimi_k3": "block_sparse_moe.experts",
    # DeepSeek-V4 (Flash/Pro): per-expert MXFP4 under `mlp.experts.{e}.w{1,3,2}`, same
    # lineage as K3 but with honest dtype labels and a `weight`/`scale` suffix pair.
    # Its DENSE half is block-scaled FP8, not bf16 — see DEEPSEEK_V4_FP8_DENSE.
    "deepseek_v4": "mlp.experts",
    # Nemotron-H: hybrid Mamba/attention, experts in a `mixer` block and NON-GATED
    # (`down(act(up(x)))`, no SwiGLU gate). `expert_layout_for` takes has_gate from the
    # convention, so the read stacks up_proj alone rather than fusing an absent gate,
    # and `_expert_activation_name` reads the family's own `mlp_hidden_act` (relu2)
    # instead of defaulting to SiLU (#650). Its checkpoint nests everything under
    # `backbone.`, which `_rename_ckpt_prefixes` normalizes to `model.` (e4b#648).
    "nemotron_h": "mixer.experts",
    # Jamba and LFM2-MoE: hybrid towers (Mamba; LFM2's short convolutions) whose MoE
    # layers store experts PER-EXPERT under `feed_forward.experts.{e}.*` -- jamba as
    # {gate,up,down}_proj, lfm2_moe as w1/w3/w2 -- and whose built trees declare one
    # fused stack at `feed_forward.experts`. The generic per-expert read handles both
    # from the convention; the non-expert Mamba/conv surface is ordinary passthrough.
    # Admitted 2026-09-21 (e4b#648) on real-checkpoint rows, not on convention
    # membership -- see the note on READ_COMPATIBLE_CONVENTIONS below.
    "jamba": "feed_forward.experts",
    "lfm2_moe": "feed_forward.experts",
}
# model_type -> checkpoint prefix for the text tower of a MULTIMODAL config. Gemma-4
# nests the language model as `model.language_model.`; Kimi K3 reverses the order
# (`language_model.model.`), so the prefix cannot be derived from the presence of
# `text_config` alone — it is per-family.
MULTIMODAL_CKPT_PREFIX = {"kimi_k3": "language_model.model."}
# model_type -> (gate, up, down) on-disk projection spellings for per-expert MXFP4
# checkpoints, plus the packed/scale suffixes. K3: w1=gate, w3=up, w2=down —
# confirmed by SHAPES, not convention (w1/w3 are [inter, latent]; w2 is
# [latent, inter]).
K3_PER_EXPERT_MXFP4 = {
    "kimi_k3": (("w1", "w3", "w2"), "weight_packed", "weight_scale"),
    # V4 keeps K3's w1/w3/w2 spelling and shapes but names the tensors `weight`/`scale`
    # and labels their dtypes honestly (`I8` / `F8_E8M0` rather than K3's `U8`/`U8`).
    # `dequantize_mxfp4` reinterprets both, so the same branch reads them unchanged.
    "deepseek_v4": (("w1", "w3", "w2"), "weight", "scale"),
}
# model_type -> the checkpoint is published in a NON-transformers spelling and every key
# must be rewritten before it can be matched against the module tree. Unlike
# MULTIMODAL_CKPT_PREFIX (which strips a prefix), these checkpoints need a full rename —
# including ADDING the `model.` prefix, which a prefix-strip cannot express.
CKPT_KEY_REWRITERS = {"deepseek_v4": rename_deepseek_v4_key}
# model_type -> the non-expert ("dense") weights are block-scaled FP8 rather than bf16,
# and each `X.weight` carries a companion `X.scale`. Those pairs become Fp8BlockLinear.
DEEPSEEK_V4_FP8_DENSE = {"deepseek_v4"}
SUPPORTED_MODEL_TYPES = set(SUPPORTED_ARCHITECTURES)


#: Conventions whose per-expert checkpoint layout the streaming read handles.
#: Membership is the whole admission decision — there is no per-family read code
#: behind it. ``qwen2_moe`` spells its experts ``mlp.experts.{e}.{gate,up,down}_proj``;
#: ``mixtral`` and ``phimoe`` spell theirs ``block_sparse_moe.experts.{e}.{w1,w3,w2}``,
#: under a container the module tree does not use. Both are read through the
#: convention's own ``expert_re``, so the difference is data, not a branch.
#:
#: Still deliberately NARROW. Absent on purpose: ``dbrx``, whose flat
#: ``[E*inter, hidden]`` stacks are not per-expert at all. It needs evidence, not
#: an entry.
#:
#: ``jamba`` and ``lfm2_moe`` were listed here too, as "hybrid Mamba towers whose
#: NON-expert surface this loader has never placed". That was the right caution and
#: it turned out to be answerable: both now load, and both were admitted through
#: ``SUPPORTED_ARCHITECTURES`` on their own real-checkpoint rows rather than added
#: to this set. The distinction is deliberate -- membership here would have carried
#: them in on their STORAGE convention, and the open question was never storage.
#:
#: ``nemotron_h`` used to be listed here too, as "hybrid AND non-gated". It is now
#: admitted -- but through ``SUPPORTED_ARCHITECTURES``, not this set, and the
#: distinction is the point: this set says a convention's per-expert layout is
#: READ-COMPATIBLE, which would have carried nemotron_h in on membership alone. It
#: came in on its own evidence instead (e4b#648): a real-checkpoint row, a non-gated
#: read taken from the convention, and its own activation field.
#:
#: **This answers STORAGE ONLY.** A convention says where the weights are and how
#: they fuse; it says nothing about the epilogue the model runs over them, which is
#: the model's own forward. Sharing a convention with mixtral therefore does NOT
#: make a family loadable — see :func:`_declares_clamped_swiglu`, which refuses the
#: ones whose experts are not the plain ``act(gate) * up`` this loader builds.
READ_COMPATIBLE_CONVENTIONS = frozenset({"qwen2_moe", "mixtral", "phimoe"})


#: Env flag for the staged-synchronisation debug mode (#344). Off by default: the
#: synchronisations it inserts serialise the load and cost real time on a healthy host.
SYNC_DEBUG_ENV = "E4B_LOAD_SYNC_DEBUG"
LAUNCH_BLOCKING_ENV = "CUDA_LAUNCH_BLOCKING"


def _host_mem_facts():
    """``(MemTotal, MemAvailable, cgroup_limit)`` in bytes; ``None`` where unreadable.

    Linux-only by construction (``/proc``, ``/sys/fs/cgroup``); every caller treats
    ``None`` as "not knowable here" rather than as zero. Used only to DESCRIBE a host
    in a diagnosis or a debug banner — nothing branches on these numbers, because a
    loader that refused on a RAM estimate would refuse hosts that load this checkpoint
    perfectly well today.
    """
    total = avail = limit = None
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                key, _, rest = line.partition(":")
                if key == "MemTotal":
                    total = int(rest.split()[0]) * 1024
                elif key == "MemAvailable":
                    avail = int(rest.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    for path in ("/sys/fs/cgroup/memory.max",                      # cgroup v2
                 "/sys/fs/cgroup/memory/memory.limit_in_bytes"):   # cgroup v1
        try:
            with open(path) as fh:
                raw = fh.read().strip()
        except OSError:
            continue
        if raw and raw != "max":
            try:
                value = int(raw)
            except ValueError:
                break
            # v1 spells "no limit" as a sentinel near 2**63, not as a word.
            if value < (1 << 62):
                limit = value
        break
    return total, avail, limit


def _gib(n):
    return "unknown" if n is None else f"{n / 2**30:.1f} GiB"


def _largest_shard(snap, weight_map):
    """``(filename, bytes)`` of the biggest shard this load will map, or ``(None, None)``."""
    best_name, best_size = None, None
    for fn in set(weight_map.values()):
        try:
            size = os.path.getsize(os.path.join(snap, fn))
        except OSError:
            continue
        if best_size is None or size > best_size:
            best_name, best_size = fn, size
    return best_name, best_size


def _shard_read_diagnosis(name, fn, snap, weight_map, device):
    """The sentences an opaque shard-read failure should have carried all along (#344).

    ``safe_open(..., device="cuda")`` maps the whole shard and copies each tensor to the
    GPU out of that mapping. When the mapping is marginal for the host, the failure is NOT
    self-describing: a 30 GiB host refuses the map outright ("Cannot allocate memory"),
    while a larger-but-still-tight host maps it and a later copy comes back as
    ``CUDA error: invalid argument`` at whichever tensor read happens to be next — naming a
    CUDA call and a tensor that need have nothing to do with the cause. Both readings were
    taken for loader or driver bugs for three weeks (#344, and the dead #350/#351 pair).

    So: name the shard, its size, and the host's memory headroom, at the point of failure.
    This DESCRIBES; it does not diagnose by threshold. Nothing here decides the host is at
    fault, and nothing refuses a load on a RAM estimate — it puts the numbers that would
    settle the question next to the error, which is all that was ever missing.
    """
    total, avail, limit = _host_mem_facts()
    big_name, big_size = _largest_shard(snap, weight_map)
    n_shards = len(set(weight_map.values()))
    try:
        this_size = os.path.getsize(os.path.join(snap, fn)) if fn else None
    except OSError:
        this_size = None
    what = (f"while reading {name!r} from shard {fn!r} ({_gib(this_size)})"
            if name is not None else
            f"while MAPPING this checkpoint's {n_shards} shard(s)")
    return [
        f"e4b: {what} onto device={device!r}.",
        f"e4b: largest shard {big_name!r} at {_gib(big_size)}, of {n_shards} mapped.",
        f"e4b: host memory — MemTotal {_gib(total)}, MemAvailable {_gib(avail)}, "
        f"cgroup limit {_gib(limit)}.",
        "e4b: safe_open(device=...) maps a whole shard and copies out of that mapping, so a "
        "host whose headroom is marginal against the LARGEST shard can surface this as an "
        "opaque CUDA error rather than as a memory error — see "
        "https://github.com/pjordanandrsn/experts4bit-qlora/issues/344.",
    ]


def _explain_shard_failure(exc, name, fn, snap, weight_map, device, trace):
    """Log the diagnosis and attach it to ``exc``, WITHOUT changing the exception.

    The caller re-raises with a bare ``raise``: the type and traceback a caller may be
    catching on stay exactly as they were, and the explanation rides along as notes
    (3.11+) and, always, in the log — which is what receipts actually capture.
    """
    lines = _shard_read_diagnosis(name, fn, snap, weight_map, device) + [trace.where()]
    add_note = getattr(exc, "add_note", None)
    for line in lines:
        log(line)
        if add_note is not None:
            add_note(line)


class _LoadStageTrace:
    """Staged ``torch.cuda.synchronize()`` checkpoints across the streaming load (#344).

    Inert unless ``E4B_LOAD_SYNC_DEBUG=1``. CUDA reports asynchronously, so a fault raised
    by one kernel is observed at whatever API call runs next — which is why #344's two
    recorded failures name ``safe_open(...).get_tensor`` at two unrelated points in the
    load. Synchronising at each stage boundary bounds the fault to the stage that caused
    it; ``CUDA_LAUNCH_BLOCKING=1`` narrows it further, to the launch.

    ``CUDA_LAUNCH_BLOCKING`` is read by the driver when the CUDA context is created, so
    setting it here only does something while CUDA is still uninitialised. That case is
    worth serving (a caller that imported torch but has not touched the GPU is the normal
    one), and the banner says plainly which of the two happened — a debug mode that
    silently did nothing would be the worst outcome of all.
    """

    def __init__(self, device, enabled=None):
        self.enabled = (os.environ.get(SYNC_DEBUG_ENV, "0") == "1") if enabled is None else enabled
        self.device = device
        self.last = None          # last stage that synchronised clean
        self.current = None       # fine-grained: the tensor read in flight
        self.coarse = None        # the phase the load is in, between reads
        # `torch.cuda.synchronize` RAISES on a non-CUDA device, so an armed trace on a CPU
        # device would turn a diagnostic flag into a load failure. This flag exists to help
        # someone whose load is already failing; it must not be able to be the reason.
        if self.enabled and "cuda" not in str(device):
            log(f"  {SYNC_DEBUG_ENV}=1 ignored: device={device!r} is not a CUDA device, and "
                "there is nothing to synchronise. The shard-read diagnosis is unaffected.")
            self.enabled = False

    def arm(self):
        if not self.enabled:
            return
        blocking = os.environ.get(LAUNCH_BLOCKING_ENV)
        if blocking == "1":
            state = "already set in the environment (the driver will honour it)"
        elif torch.cuda.is_initialized():
            state = (f"NOT set and CUDA is already initialised — {LAUNCH_BLOCKING_ENV} is read at "
                     "context creation, so it cannot be turned on now. Stage bounds below are "
                     "still exact; the kernel within a stage is not. Re-run with "
                     f"{LAUNCH_BLOCKING_ENV}=1 in the environment for that.")
        else:
            os.environ[LAUNCH_BLOCKING_ENV] = "1"
            state = ("set here, before this process created its CUDA context — the driver will "
                     "honour it, so a fault surfaces at its own launch")
        total, avail, limit = _host_mem_facts()
        log(f"  {SYNC_DEBUG_ENV}=1: staged synchronisation ON; {LAUNCH_BLOCKING_ENV} {state}")
        log(f"  host: MemTotal {_gib(total)}, MemAvailable {_gib(avail)}, cgroup limit {_gib(limit)}; "
            f"torch {torch.__version__}, device {self.device!r}")

    def phase(self, name):
        """Open a COARSE phase ("quantise experts: layer 7"). What a fault falls back to
        once the tensor read that preceded it has already synchronised clean — which is the
        case #344 actually hypothesised: a kernel between the reads, observed at the next
        read. Without this, such a fault reads as "between stages" and names nothing."""
        if self.enabled:
            self.coarse = name
            self.current = name

    def sync(self, stage):
        """Close ``stage``: synchronise, log it, record it as the last clean stage."""
        if not self.enabled:
            return
        torch.cuda.synchronize(self.device)
        log(f"  [sync] {stage}: clean")
        self.last = stage
        self.current = self.coarse

    def enter(self, stage):
        if self.enabled:
            self.current = stage

    def tick(self):
        """Close the current read silently — one log line per tensor would be a thousand
        lines of noise, and the stage NAME is the payload, not the line."""
        if not self.enabled:
            return
        torch.cuda.synchronize(self.device)
        self.last = self.current
        self.current = self.coarse

    def where(self):
        """A sentence placing a failure between the last clean stage and the current one."""
        if not self.enabled:
            return (f"e4b: re-run with {SYNC_DEBUG_ENV}=1 to bound this failure to a load stage "
                    f"(and {LAUNCH_BLOCKING_ENV}=1 in the environment to bound it to a launch).")
        return (f"e4b: [sync] last stage that synchronised clean: {self.last or '<none>'}; "
                f"failure observed in: {self.current or '<between stages>'} "
                f"(phase: {self.coarse or '<none>'}).")


def _declares_clamped_swiglu(lm_config):
    """True if this config declares the CLAMPED SwiGLU epilogue (gpt-oss lineage):
    ``gate.clamp(max=limit)``, ``up.clamp(±limit)``, ``gate * sigmoid(gate * alpha)``.

    Read off the config rather than a model_type list so a family that adopts the
    epilogue later is refused too. ``hidden_act`` cannot be used for this: the
    families that run it compute the gate INLINE from ``swiglu_alpha``/
    ``swiglu_limit`` and leave ``hidden_act`` reading like an ordinary activation,
    so the loader's existing unknown-activation warning never fires and the
    substitution is silent."""
    return any(getattr(lm_config, a, None) is not None
               for a in ("swiglu_alpha", "swiglu_limit"))


def _read_compatible_convention(model_type):
    """True if this model_type loads through the GENERIC per-expert read path.

    olmoe and qwen3_moe were already supported and are the qwen2_moe convention;
    every other qwen2_moe-convention model_type stores experts identically, so the
    same streaming read handles them with no new code. Validated on a rented A6000:
    Qwen1.5-MoE-A2.7B (qwen2_moe, not previously listed) loaded, nf4-quantized, and
    generated.

    The mixtral family (mixtral, phimoe, and the minimax aliases that share the
    MIXTRAL convention) joins them now that the read takes the checkpoint-side
    container and projection spellings from the convention instead of assuming the
    module tree's. See :data:`READ_COMPATIBLE_CONVENTIONS` for what is still out."""
    from .arch.moe_conventions import MoEConventionError, convention_for
    try:
        return convention_for(model_type).name in READ_COMPATIBLE_CONVENTIONS
    except MoEConventionError:
        return False


def _convention_or_none(model_type):
    """The MoE convention for this model_type, or ``None`` if it has no adjudicated
    one. The loader's dedicated-quant specials (kimi_k3, deepseek_v4) predate the
    convention system and legitimately have none (gemma4 gained an empty-roles,
    pre-fused convention on 2026-09-04 so the int4 expert lane can plan it; the
    loader's dedicated path is unchanged); every path that consults a convention
    must therefore tolerate its absence rather than raise."""
    from .arch.moe_conventions import MoEConventionError, convention_for
    try:
        return convention_for(model_type)
    except MoEConventionError:
        return None


#: Split a normalized checkpoint key into (layer index, the suffix a convention's
#: ``expert_re`` matches). Every key reaching this point has already been rewritten
#: to the plain ``model.`` prefix (see the multimodal/rewriter branches below), so
#: the anchor is exact rather than the planner's non-greedy prefix capture.
_LAYER_KEY = re.compile(r"^model\.layers\.(\d+)\.(.+)$")

#: Capture the part of a checkpoint key BEFORE ``layers.N.`` so the convention's
#: renames can be applied to it alone. Non-greedy, exactly as the planner's.
_CKPT_PREFIX = re.compile(r"^(.*?)layers\.(\d+)\.(.+)$")


def _rename_ckpt_prefixes(conv, weight_map, orig_key):
    r"""Apply the convention's renames to each key's PREFIX -- the part before
    ``layers.N.`` -- returning new ``(weight_map, orig_key)``.

    The loader anchors its expert indexing on :data:`_LAYER_KEY`
    (``^model\.layers\.``) and builds every fused-target lookup from
    ``model.layers.{i}.{expert_rel}.``. A family that ships ``backbone.layers.N.``
    where the tree declares ``model.layers.N.`` (nemotron_h) therefore matched NO
    expert key: ``_index_per_expert_keys`` returned ``{}``, every MoE layer looked
    dense, and the load ended in the zero-expert-stacks guard -- while its
    NON-expert keys renamed fine, because the ``_assign`` pass applies
    ``conv.rename`` and the expert path never did. Renames meant two different
    things depending on which branch a key took. That is the same defect #643/#644
    fixed in the PLANNER, on the other side of the same convention.

    Deliberately the planner's narrow rule rather than a blanket rename of the
    whole key: renaming a full key would rewrite the CONTAINER too, and the
    mixtral family stores experts under ``block_sparse_moe.experts`` while
    declaring ``mlp.experts`` -- its rename turned on the whole key would rewrite
    the very substring ``MIXTRAL.expert_re`` matches on, so every mixtral expert
    key would stop being recognised. Post-``layers.N.`` renames are already baked
    into ``fused_prefix``; only the prefix was left unrewritten.

    A no-op for every family admitted before nemotron_h, by construction: the
    prefix of an already-normalized key is ``model.``, and no convention's rename
    source occurs in it (mixtral/phimoe/granitemoe rename a ``block_sparse_moe``
    container, gemma4 renames ``model.language_model.``, which the multimodal
    branch above has already stripped by the time this runs).
    ``tests/test_loader_architectures.py`` asserts that no-op directly.
    """
    if conv is None or not conv.renames:
        return weight_map, orig_key
    new_map, new_orig = {}, {}
    for key, shard in weight_map.items():
        m = _CKPT_PREFIX.match(key)
        renamed = key
        if m is not None:
            prefix = conv.rename(m.group(1))
            if prefix != m.group(1):
                renamed = f"{prefix}layers.{m.group(2)}.{m.group(3)}"
        if renamed in new_map:
            raise RuntimeError(
                f"convention {conv.name!r}: renaming the prefix of {key!r} to "
                f"{renamed!r} collides with another checkpoint key. Refusing rather "
                f"than dropping one of them -- a silently shorter key set loads a "
                f"model with weights missing.")
        new_map[renamed] = shard
        new_orig[renamed] = orig_key[key]
    return new_map, new_orig


def _index_per_expert_keys(conv, checkpoint_keys):
    """``{layer: {role: {expert_index: checkpoint key}}}`` for every key the
    convention recognizes as a per-expert expert tensor.

    This is the checkpoint side of the layout, and it is deliberately built by
    MATCHING REAL KEYS with the convention's own ``expert_re`` rather than by
    reconstructing a prefix from that pattern's source. The convention already owns
    exactly one parser for the checkpoint spelling; a second one written here would
    be free to drift from it, and the drift would present as a layer silently read
    as dense — the failure this loader exists to prevent.

    Returns ``{}`` for a convention that is never per-expert (``roles`` empty:
    pre-fused families like gpt-oss, granitemoe, dbrx) and for a model_type with no
    convention at all, which leaves those paths exactly as they were.
    """
    if conv is None or not conv.roles:
        return {}
    index = {}
    for key in checkpoint_keys:
        m = _LAYER_KEY.match(key)
        if m is None:
            continue
        hit = conv.match(m.group(2))
        if hit is None:
            continue
        expert, role = hit
        index.setdefault(int(m.group(1)), {}).setdefault(role, {})[expert] = key
    return index


#: Config fields a family may declare its EXPERT/MLP activation with, in priority
#: order. Widened in e4b#648: the lookup used to be ``hidden_activation`` then
#: ``hidden_act`` with a ``"silu"`` DEFAULT, and nemotron_h declares NEITHER --
#: it names the field ``mlp_hidden_act`` and its value is ``relu2``. So the
#: default fired, and because nemotron_h is NON-GATED the expert function is
#: ``down(act(up(x)))``: SiLU instead of ReLU squared is a different function,
#: with every shape agreeing. The pre-existing guard could not see it -- it warns
#: on an activation NAME that is not in ACT2FN, and here the name resolved to
#: ``"silu"``, which is both in ACT2FN and explicitly excluded from the warning.
#: It was built for a value it cannot resolve (Kimi-K3's ``situ``); this was a
#: FIELD it never looked at.
_ACTIVATION_FIELDS = ("hidden_activation", "hidden_act", "mlp_hidden_act",
                      "activation_function")

#: model_types whose config declares none of the above and for which SiLU is
#: nonetheless correct, with where the real value lives. An absent field is
#: otherwise a REFUSAL, because "no declaration" and "declared silu" must not
#: look the same -- that equivalence is what hid the nemotron_h case. Each entry
#: is adjudicated and asserted by
#: ``tests/test_expert_activation.py::test_every_undeclared_exemption_is_still_true``.
_ACTIVATION_UNDECLARED_OK = {
    # Composite config: the loader reads `text_config`, which Qwen3-Omni does not
    # have at the top level (it nests `thinker_config`). The real value is
    # `thinker_config.text_config.hidden_act` == "silu", so the default is right.
    "qwen3_omni_moe": "thinker_config.text_config.hidden_act == 'silu'",
    # Flat config with no activation attribute at all; upstream's modeling applies
    # SiLU unconditionally.
    "lfm2_moe": "no activation attribute; upstream Lfm2Moe applies SiLU",
    # Declares it nested as `ffn_config.ffn_act_fn == {"name": "silu"}`.
    "dbrx": "ffn_config.ffn_act_fn['name'] == 'silu'",
}


def _expert_activation_name(lm_config, model_type):
    """``(activation_name, field_it_came_from)``, or raise rather than default.

    Returns the family's own declaration. When a config declares NONE of
    :data:`_ACTIVATION_FIELDS`, silently falling back to SiLU is the
    silent-wrong-numbers failure this loader exists to prevent, so an unlisted
    family is refused (e4b#648).
    """
    for field in _ACTIVATION_FIELDS:
        value = getattr(lm_config, field, None)
        if value is not None:
            return value, field
    if model_type in _ACTIVATION_UNDECLARED_OK:
        return "silu", f"<undeclared; {_ACTIVATION_UNDECLARED_OK[model_type]}>"
    from .arch.moe_conventions import MoEConventionError
    present = sorted(k for k in vars(lm_config) if "act" in k.lower())
    raise MoEConventionError(
        f"{model_type!r}: its config declares none of {list(_ACTIVATION_FIELDS)}, so "
        f"the expert activation is unknown. Defaulting to SiLU here would compute a "
        f"wrong expert function without raising -- nemotron_h names the field "
        f"`mlp_hidden_act` and means `relu2`, and got SiLU silently for exactly this "
        f"reason. Activation-like attributes present: {present or 'none'}. Add the "
        f"field this family uses to _ACTIVATION_FIELDS, or record it in "
        f"_ACTIVATION_UNDECLARED_OK with the evidence that SiLU is correct (e4b#648)."
    )


#: model_types whose loader path REWRITES the checkpoint's fused gate/up stack into
#: e4b's [gate-block; up-block] layout before any consumer sees it, so a non-chunk(2)
#: on-disk packing is handled rather than mis-split. Every entry must name real code:
#:
#:   gpt_oss -> arch/gptoss.py::from_gptoss, which transposes to [E, 2I, H] and then
#:              de-interleaves the rows with torch.cat([gu[:, 0::2], gu[:, 1::2]]).
#:
#: This is an exemption from the refusal in ``expert_layout_for``, so it is data and
#: it is tested: ``test_every_deinterleaving_loader_names_real_code`` fails if an entry
#: has no de-interleaving code behind it, and the refusal fires for anyone not listed.
DEINTERLEAVING_LOADERS = frozenset({"gpt_oss"})


def expert_layout_for(model_type):
    """``(expert_submodule_path, has_gate)`` for the quantized loader.

    The MoE convention system (:mod:`experts4bit_qlora.arch.moe_conventions`) is the
    broad, adjudicated source of truth for expert layout — 41 model_types and
    counting — and its ``fused_prefix`` is exactly the submodule path this loader
    calls ``expert_rel``. Where a convention exists, defer to it, and take
    ``has_gate`` from it too (so a non-gated family like nemotron_h is handled
    correctly rather than assumed SwiGLU). Fall back to this loader's own map for
    the dedicated-quant specials (gemma4, kimi_k3, deepseek_v4) that predate the
    convention system and carry MXFP4/FP8 handling a plain convention does not.

    Verified: for every model_type both systems cover, the paths already agree
    (see tests) — this makes that agreement the mechanism, not a coincidence.
    """
    from .arch.moe_conventions import MoEConventionError, convention_for
    # The fallback below exists for ONE case: this family has no convention at all.
    # It must not also catch the refusals that follow, so the lookup is the only
    # thing inside the try. It used to wrap them too, which made every refusal INERT
    # for exactly the families that matter: a model_type with a SUPPORTED_ARCHITECTURES
    # entry -- gemma4, gemma4_text, granitemoe, gpt_oss, qwen3_5_moe, olmoe, qwen3_moe,
    # deepseek_v4, kimi_k3, i.e. every reachable pre-fused family -- had its refusal
    # raised, caught one line later, and downgraded to a successful return. The guard
    # read as a guard and protected nobody (e4b#515).
    try:
        conv = convention_for(model_type)
    except MoEConventionError:
        if model_type in SUPPORTED_ARCHITECTURES:
            return SUPPORTED_ARCHITECTURES[model_type], True
        raise
    # From here on a refusal PROPAGATES. Loud beats wrong.
    #
    # e4b#515. Every consumer of a fused gate_up_proj splits it with
    # ``chunk(2, dim=-1)`` and takes the FIRST half as the gate -- the
    # vendored expert forward, deepseek_v4's dense path, the hybrid and
    # hot-residency engines, and ExpertsLoRA. None of them is parameterised
    # on the order. So a convention declaring up-first would load and then
    # compute ``up * act(gate)``: a wrong activation, silently, with every
    # structural gate still passing. Refuse it here, at the one funnel from
    # the convention system into this loader, until those consumers read
    # ``fused_order`` instead of assuming. Loud beats wrong.
    if not conv.gate_first:
        raise MoEConventionError(
            f"convention {conv.name!r} declares fused_order "
            f"{tuple(conv.fused_order)!r}, but this loader's expert consumers "
            f"all assume the gate occupies rows [0:inter] of gate_up_proj. "
            f"Loading it would compute a wrong activation without raising. "
            f"Parameterise the consumers on MoEConvention.fused_order before "
            f"admitting an up-first family (e4b#515)."
        )
    # Same refusal, second axis. ``chunk(2, dim=-1)`` splits CONTIGUOUS blocks,
    # so an interleaved stack placed unchanged would pair gate stripe k with up
    # stripe k+1 -- again a wrong activation with every shape agreeing. A family
    # is admitted only if its stack is chunk(2)-splittable as stored, or if a
    # named loader path rewrites it first.
    if not conv.splits_by_chunk2 and model_type not in DEINTERLEAVING_LOADERS:
        raise MoEConventionError(
            f"convention {conv.name!r} declares ckpt_gate_up_packing "
            f"{conv.ckpt_gate_up_packing!r}, but this loader's expert consumers "
            f"split a fused gate_up_proj with chunk(2, dim=-1), which recovers "
            f"gate and up only from CONTIGUOUS blocks. Placing this stack "
            f"unchanged would compute a wrong activation without raising. Give "
            f"{model_type!r} a loader path that rewrites the stack into "
            f"[gate-block; up-block] (see arch/gptoss.py::from_gptoss) and add it "
            f"to DEINTERLEAVING_LOADERS (e4b#515)."
        )
    # ...and finally, where it can be measured, check the DECLARATION itself against
    # what upstream's expert forward actually computes. The refusals above act on
    # what the record SAYS; this acts on whether the record is TRUE. A definite
    # disagreement raises. An unmeasurable family does not -- see
    # `verify_declared_layout` for why, and `tests/test_fused_layout_probe.py`,
    # which makes "unmeasurable" a failure for every family e4b ships.
    from .arch.fused_layout_probe import verify_declared_layout
    verify_declared_layout(model_type, conv)
    return conv.fused_prefix, conv.gated

# model_type -> ((legacy on-disk spelling, name in the transformers>=5 module tree), ...).
# GraniteMoe checkpoints on the Hub predate the standardized fused-experts interface: the fused
# stacks are stored as `block_sparse_moe.input_linear.weight` [num_experts, 2*inter, hidden]
# (gate+up pre-fused, gate first — the module chunks the projection in half and activates the first
# half, matching Experts4bit's has_gate convention) and `block_sparse_moe.output_linear.weight`
# [num_experts, hidden, inter]; the router weight sits one module deeper, at `router.layer.weight`.
# transformers' own from_pretrained applies exactly these renames (conversion_mapping.py,
# "granitemoe"); this loader reads shards directly, so it must apply them itself. Substring
# renames over the whole key set: a checkpoint already saved with the current names matches
# nothing and passes through unchanged.
#: GraniteMoe's released spelling, shared verbatim by its two aliases. Upstream's
#: `conversion_mapping` entry for `granitemoe`, `granitemoehybrid` and
#: `granitemoeshared` is the SAME three `WeightRenaming`s, compared entry by entry
#: rather than assumed -- `tests/test_loader_architectures.py`
#: ::`test_the_granite_aliases_share_granitemoes_converter_exactly` fails if upstream
#: ever splits them.
#:
#: Referenced three times rather than folded into a convention-wide fallback on
#: purpose. `LEGACY_KEY_RENAMES` rewrites `weight_map` UP FRONT, and a convention's
#: renames are not all safe there: mixtral's `.block_sparse_moe.` -> `.mlp.` would
#: rewrite the very substring `MIXTRAL.expert_re` matches on, so every mixtral expert
#: key would stop being recognised. Only this family's renames are up-front-safe,
#: because they rename a key to the name the module tree already uses.
_GRANITEMOE_LEGACY = (
    ("block_sparse_moe.input_linear.weight", "block_sparse_moe.experts.gate_up_proj"),
    ("block_sparse_moe.output_linear.weight", "block_sparse_moe.experts.down_proj"),
    ("block_sparse_moe.router.layer.weight", "block_sparse_moe.router.weight"),
)
LEGACY_KEY_RENAMES = {
    "granitemoe": _GRANITEMOE_LEGACY,
    # Without these two entries the aliases would be ADMITTED and load nothing: the
    # table is keyed on model_type, so `input_linear` would never become
    # `experts.gate_up_proj`, every layer would look dense, and the load would end in
    # the zero-expert-stacks guard. Admission and the rename have to land together.
    "granitemoehybrid": _GRANITEMOE_LEGACY,
    "granitemoeshared": _GRANITEMOE_LEGACY,
}


def _fit(name, tensor, want):
    """Reconcile a checkpoint tensor with the shape the built module declares.

    This loader used to place whatever the shard held, unchecked — and `_assign`
    REPLACES the meta parameter, so a wrong-shaped tensor silently becomes the model's
    shape. That is the failure mode with no symptom: nothing raises at load, and the
    disagreement surfaces (if at all) as a broadcast that happens to work.

    Kimi K3 makes it concrete. Its 69 KDA layers ship ``A_log`` per-head — 96 values —
    ZERO-PADDED to 128 lanes, while the released modeling code builds ``(96,)`` and
    never slices. vLLM's ``a_log_weight_loader`` narrows to the head count and the
    discarded tail is exact zeros, so narrowing is the reference behaviour rather than
    a guess about intent.

    Permit exactly that shape of disagreement: 1-D, LONGER than the parameter, and
    provably zero past its end. Everything else raises. A blanket narrow would
    reintroduce the silent wrongness this check exists to catch, because the padding is
    not inert if used: ``-exp(0) = -1`` would give 32 phantom heads a full-strength
    decay.

    Dtype is deliberately NOT coerced. The checkpoint's dtype is the authority (K3
    keeps ``A_log``/``dt_bias``/``o_norm`` in fp32 under a bf16 model), and quietly
    casting weights is the thing this package exists not to do.
    """
    if want is None or tuple(tensor.shape) == tuple(want.shape):
        return tensor, False
    if (tensor.dim() == want.dim() == 1 and tensor.numel() > want.numel()
            and bool((tensor[want.numel():] == 0).all())):
        return tensor[:want.numel()].clone(), True
    raise ValueError(
        f"{name}: checkpoint holds {tuple(tensor.shape)} but the model declares "
        f"{tuple(want.shape)}. Only 1-D trailing padding that is provably zero is "
        "narrowed; this is not that, so placing it would give the model the "
        "checkpoint's shape and no error until much later. Fix the config, the key "
        "mapping, or the checkpoint."
    )


def _checkpoint_key_renamings(model_type):
    """Checkpoint-key -> live-module-key renamings that transformers applies on load.

    This loader walks raw checkpoint keys with ``get_submodule``, so a family whose
    released key layout differs from its module tree dies on a literal getattr.
    ernie4_5_moe is the case that surfaced it: both released checkpoints
    (ERNIE-4.5-21B-A3B and 300B) store ``mlp.moe_statics.e_score_correction_bias``
    at the MoE-block level, while the module tree carries it under ``mlp.gate.``.
    Walking the disk name gave ``Ernie4_5_MoeSparseMoeBlock has no attribute
    'moe_statics'``, which names neither the architecture nor the real problem.

    transformers reconciles the two through a per-``model_type`` table, so this reads
    that table rather than re-deriving the renamings — a second copy would drift.

    Best-effort by design: the table is transformers-internal, so an import failure or
    a shape change must degrade to "no renamings" (restoring today's behaviour) rather
    than break every load. Only unambiguous 1:1, wildcard-free suffix renamings are
    taken; anything richer is a real conversion, not a rename, and is left alone.
    """
    try:
        from transformers.conversion_mapping import get_checkpoint_conversion_mapping
        out = []
        for wr in get_checkpoint_conversion_mapping(model_type) or ():
            src = getattr(wr, "source_patterns", None) or []
            dst = getattr(wr, "target_patterns", None) or []
            if len(src) == 1 and len(dst) == 1 and "*" not in src[0] and "*" not in dst[0]:
                out.append((src[0], dst[0]))
        return out
    except Exception:
        return []


def _rename_checkpoint_key(name, renamings):
    """Apply the first matching suffix renaming to a checkpoint key."""
    for src, dst in renamings:
        if name == src or name.endswith("." + src):
            return name[: len(name) - len(src)] + dst
    return name


class UnplaceableTensorError(AttributeError):
    """A checkpoint tensor names a module the built model does not have.

    Raised by :func:`_parent_module` (so by :func:`_assign`) instead of torch's bare
    ``AttributeError`` — ``Ernie4_5_MoeModel has no attribute `mtp_block``` named
    neither the checkpoint key nor either way this loader knows to declare a tensor
    the text model does not build (e4b#529). A subclass of AttributeError so
    nothing that caught the old exception breaks.
    """


def _unbuilt_key_patterns(model):
    """The modeling class's own declaration of checkpoint tensors it does not build.

    transformers' ``from_pretrained`` files a checkpoint key with no destination as
    "unexpected" and, when the class lists a matching pattern in
    ``_keys_to_ignore_on_load_unexpected``, drops it without a word: ERNIE-4.5 MoE
    declares ``["mtp"]`` (its modeling file: "Not supporting multi-token prediction
    (MTP) atm"), DeepSeek-V4 ``["(^|\\.)mtp\\..*"]``. This loader walks raw keys itself,
    so it honours the same declaration at the same point: a key with no module that
    matches is skipped and counted; a key with no module that matches nothing is
    refused by name. The instance attribute is the set transformers merges from
    every submodule at post-init; the class attribute is the fallback.
    """
    pats = getattr(model, "_keys_to_ignore_on_load_unexpected", None)
    if not pats:
        pats = getattr(type(model), "_keys_to_ignore_on_load_unexpected", None)
    return [re.compile(p) for p in (pats or ())]


def _parent_module(model, name):
    """The module that owns dotted ``name``, and the attribute name on it.

    Refuses by name when no such module exists, and says what to do about it.
    """
    *path, attr = name.split(".")
    try:
        return (model.get_submodule(".".join(path)) if path else model), attr
    except AttributeError as e:
        raise UnplaceableTensorError(
            f"checkpoint tensor {name!r} has no module to receive it in "
            f"{type(model).__name__} ({e}). If the text model does not build it — a "
            f"multi-token-prediction block, a vision or audio tower — the modeling class "
            f"declares that in `_keys_to_ignore_on_load_unexpected` and this loader honours "
            f"it; otherwise map or drop the key in CKPT_KEY_REWRITERS or the convention's "
            f"`drop_re`. Assigning it anyway is not an option (e4b#529)."
        ) from e


def _assign(model, name, tensor):
    """Place a real (GPU) tensor into a meta-initialized module by dotted name.

    Returns True if the tensor was narrowed to fit — see :func:`_fit`. Raises
    :class:`UnplaceableTensorError` when ``name`` has no module.
    """
    mod, attr = _parent_module(model, name)
    if attr in mod._parameters:
        tensor, cut = _fit(name, tensor, mod._parameters[attr])
        mod._parameters[attr] = torch.nn.Parameter(tensor, requires_grad=False)
        return cut
    if attr in mod._buffers:
        tensor, cut = _fit(name, tensor, mod._buffers[attr])
        mod._buffers[attr] = tensor
        return cut
    # No declared parameter or buffer to check against: nothing to compare, and
    # nothing the model already believes about the shape to contradict.
    setattr(mod, attr, tensor)
    return False


class _RawShardReader:
    """Read a safetensors tensor as raw ``uint8``, bypassing torch's dtype table.

    ``safe_open(...).get_tensor`` materializes through that table, so a shard declaring a
    dtype this torch build does not have cannot be read *at all* — it raises
    ``AttributeError`` from inside ``torch.__getattr__``, not from safetensors. DeepSeek-V4
    hits this immediately: its MXFP4 expert scales and its FP8 dense scales are both
    labelled ``F8_E8M0``, which torch only grew in 2.7.

    The bytes were never the problem, only the label. And both consumers want the biased
    exponent *byte* anyway — ``dequantize_mxfp4`` feeds it to ``ldexp``, ``Fp8BlockLinear``
    normalizes it to ``uint8`` on construction — so reading it as ``uint8`` here is the
    more direct path, not a workaround for old torch.
    """

    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            n = struct.unpack("<Q", f.read(8))[0]
            self.header = json.loads(f.read(n))
        self.header.pop("__metadata__", None)
        self.base = 8 + n

    def u8(self, key):
        meta = self.header[key]
        a, b = meta["data_offsets"]
        with open(self.path, "rb") as f:
            f.seek(self.base + a)
            buf = bytearray(f.read(b - a))
        return torch.frombuffer(buf, dtype=torch.uint8).reshape(meta["shape"])


def _install_fp8_block_linears(model, weight_map, get, expert_keys, dtype, device):
    """Swap every dense ``nn.Linear`` whose checkpoint weight is block-scaled FP8.

    DeepSeek-V4 keeps its non-expert half in ``float8_e4m3fn`` with one ``e8m0`` scale per
    ``[128, 128]`` tile. Those weights have no home in a bf16 ``nn.Linear`` and their
    ``.scale`` companions have no module at all, so `_assign` cannot place either; the pair
    becomes an :class:`Fp8BlockLinear`, which keeps the FP8 bytes resident and decodes on
    use (~1 byte/param instead of 2 — the difference between fitting a 12 GB card and not).

    Pairing is by **sibling presence**, never by the ``.scale`` suffix. V4's
    hyper-connections ship a standalone parameter literally *named* ``scale``
    (``attn_hc.scale``, ``ffn_hc.scale``, ``hc_head.hc_scale``) with no ``weight`` beside
    it. Keying off the suffix would swallow those three per layer and leave the HC modules
    silently unloaded — caught by the reverse arm of ``test_deepseek_v4_keys``.

    Returns the set of checkpoint keys it consumed.
    """
    consumed = set()
    for name in list(weight_map):
        if not name.endswith(".weight") or name in expert_keys:
            continue
        stem = name[: -len(".weight")]
        scale_key = stem + ".scale"
        if scale_key not in weight_map or scale_key in expert_keys:
            continue
        w = get(name)
        if w.dtype not in (torch.float8_e4m3fn, torch.uint8, torch.int8):
            continue                       # a `.scale` sibling that is not FP8 storage
        target = model.get_submodule(stem)
        # Convert IN PLACE rather than substituting an Fp8BlockLinear. V4's
        # `self_attn.o_a_proj` is a `DeepseekV4GroupedLinear` — an `nn.Linear` SUBCLASS
        # whose forward is block-diagonal — so swapping in a real Linear quietly turns a
        # grouped projection into a dense one. Rebinding the weight keeps whatever
        # forward the module already has.
        convert_to_fp8_blocks(target, w, get(scale_key), compute_dtype=dtype)
        target.to(device)
        consumed |= {name, scale_key}
    return consumed


def _assign_expert_stacks(model, epfx, stacks, has_gate):
    """Place a ``(gate_up|up, down)`` stack pair into the fused expert module.

    The names are the ones the module declares and the fused-on-disk copy of the same
    checkpoint would have been assigned into, so this lands the layer in exactly the
    state that copy reaches — only unquantized. Returns the names :func:`_fit` narrowed.

    Deliberately does NOT cast to the compute dtype. `_assign` places every other weight
    in the model at whatever dtype the checkpoint holds — attention, embeddings, router,
    and a fused-on-disk expert stack alike — so casting only these would hand an excluded
    layer a dtype no other module in the model has, and would make the two on-disk
    layouts disagree about the same checkpoint. `cat`/`stack` preserve the checkpoint
    dtype, which is exactly what is wanted.
    """
    names = ("gate_up_proj" if has_gate else "up_proj", "down_proj")
    return [f"{epfx}{n}" for n, stack in zip(names, stacks)
            if _assign(model, f"{epfx}{n}", stack)]


def layer_store_spec(quantize_layers, layer, default_quant_type, default_blocksize):
    """The store layer ``layer``'s experts are built with, or ``None`` to leave them in the base dtype.

    ``quantize_layers`` accepts three shapes, in increasing specificity:

    * ``None`` — every MoE layer takes the call's ``quant_type`` / ``blocksize``.
    * a set / sequence of layer indices — those layers take the call's store, the rest stay in the
      base dtype (:func:`_place_unquantized_experts` fills them).
    * a **mapping** ``{layer: spec}`` — each named layer takes its OWN store and layers absent from
      the mapping stay in the base dtype. ``spec`` is a scheme name (``"int8"``) or a
      ``(scheme, blocksize)`` pair (``("nf4", 256)``); a ``None`` spec means the base dtype, so a
      mapping can say "these bf16, those nf4" without a second argument.

    The mapping is what a per-family store MAP needs: Gemma-4's early expert layers are far more
    sensitive to quantisation than its late ones (experts4bit-qlora#597, bench/p48-p50), so a useful
    Gemma-4 configuration is "the first N layers at a high-precision store, the rest crushed" — one
    model, two stores, chosen per layer. Returns ``(quant_type, blocksize)`` or ``None``.
    """
    if quantize_layers is None:
        return normalize_quant_type(default_quant_type), int(default_blocksize)
    if isinstance(quantize_layers, Mapping):
        if layer not in quantize_layers:
            return None
        spec = quantize_layers[layer]
        if spec is None:
            return None
        if isinstance(spec, str):
            qt, bs = spec, default_blocksize
        elif isinstance(spec, Mapping):
            qt, bs = spec.get("quant_type", default_quant_type), spec.get("blocksize", default_blocksize)
        else:
            try:
                qt, bs = spec
            except (TypeError, ValueError):
                raise ValueError(
                    f"quantize_layers[{layer}] = {spec!r}: expected a scheme name, a (scheme, blocksize) "
                    "pair, a mapping, or None"
                ) from None
        return normalize_quant_type(qt), int(bs)
    return (normalize_quant_type(default_quant_type), int(default_blocksize)) if layer in quantize_layers else None


def _place_unquantized_experts(model, epfx, layer, weight_map, get, n_exp, model_type,
                               layer_experts, has_gate):
    """Place a ``quantize_layers``-excluded layer's experts, unquantized.

    Excluding a layer means "leave it in the base dtype, original module in place" — the
    checkpoint's own dtype, the one `_assign` gives every other weight in the model. For a
    checkpoint whose experts are already FUSED on disk that needs no help: one stack per
    projection, one module parameter to receive it, and the non-expert ``_assign`` pass
    below places them unaided.

    A PER-EXPERT checkpoint has no such correspondence. transformers >= 5 builds a single
    fused ``experts`` module with no per-expert children, so the ``_assign`` pass walked
    ``...experts.<e>.gate_proj.weight`` and died on ``get_submodule`` with
    "OlmoeExperts has no attribute `0`" — naming neither ``quantize_layers`` nor the
    layout, and reproducing on every family whose checkpoints use that spelling
    ("MixtralExperts has no attribute `0`", and so on). So fuse the per-expert tensors
    here exactly as the quantizing branch does and assign the result, leaving the layer
    holding what the fused-on-disk copy of the same checkpoint would have held — only
    unquantized.

    Returns ``(consumed_keys, narrowed_names)``: the checkpoint keys this placed (so the
    ``_assign`` pass does not walk them again), and any that :func:`_fit` had to narrow.
    Both are empty when the layer needs no help — dense, or already fused on disk.
    """
    # The arms below mirror the quantizing branch's own dispatch one-for-one, and must
    # keep doing so: a read path added there without an arm here reintroduces exactly
    # this bug on exactly the family that read was added for.
    keys = {k for k in weight_map if k.startswith(epfx)}
    if f"{epfx}gate_up_proj" in weight_map or not (keys or layer_experts):
        return set(), []                  # fused on disk, or dense: `_assign` handles it
    if layer_experts:
        # Per-expert Linears, located by the CONVENTION rather than by `epfx`. The two
        # sides differ for the families stored under a `block_sparse_moe` block — keys
        # spelled `block_sparse_moe.experts.<e>.w1` against a module built at
        # `mlp.experts` — so their keys do not start with `epfx` at all and the literal
        # arm below cannot see them. Hand the rows to the convention's own fuser, which
        # is where w1=gate / w3=up / w2=down was adjudicated; gate and up are
        # shape-identical, so that ordering is the one thing shapes cannot check.
        from .arch.moe_conventions import fuse_experts, stack_experts

        consumed, rows = set(), {}
        for role in (("gate", "up", "down") if has_gate else ("up", "down")):
            byidx = layer_experts.get(role, {})
            consumed |= {byidx[e] for e in range(n_exp) if e in byidx}
            # A hole is carried through as None, not skipped: the fuser refuses a short
            # stack and names the missing indices, rather than leaving the router
            # addressing experts that were never loaded.
            rows[role] = [get(byidx[e]) if e in byidx else None for e in range(n_exp)]
        stacks = (fuse_experts(rows["gate"], rows["up"], rows["down"]) if has_gate
                  else stack_experts(rows["up"], rows["down"]))
        return consumed, _assign_expert_stacks(model, epfx, stacks, has_gate)
    if f"{epfx}0.gate_proj.weight" in weight_map:
        # Same per-expert shape reached WITHOUT a convention — the dedicated-quant
        # families, whose `layer_experts` is empty even when spelled this way. Kept
        # verbatim against the quantizing branch's own literal arm for the same reason
        # that one is: nothing that loads today should start depending on a convention
        # entry it never had.
        consumed, gate_up_rows, down_rows = set(), [], []
        for e in range(n_exp):
            g, u, d = (
                get(f"{epfx}{e}.gate_proj.weight"),
                get(f"{epfx}{e}.up_proj.weight"),
                get(f"{epfx}{e}.down_proj.weight"),
            )
            gate_up_rows.append(torch.cat([g, u], dim=0))  # [2*inter, hidden]
            down_rows.append(d)                            # [hidden, inter]
            consumed |= {f"{epfx}{e}.{p}.weight" for p in ("gate_proj", "up_proj", "down_proj")}
        stacks = (torch.stack(gate_up_rows), torch.stack(down_rows))
        return consumed, _assign_expert_stacks(model, epfx, stacks, has_gate)
    # Packed layouts the quantizing branch reads by DEQUANTIZING them (gpt-oss MXFP4
    # blocks/scales; Kimi-K3 / DeepSeek-V4 per-expert `weight_packed`). Their base-dtype
    # home in the module tree is family-specific — gpt-oss stores gate_up interleaved and
    # hidden-major, which `from_gptoss` de-interleaves on the quantizing path — so placing
    # them here would be a guess, and a wrong guess is silent. Refuse instead, naming the
    # flag and the layout rather than dying in the generic weight walk below.
    packed = f"{epfx}gate_up_proj_blocks" in weight_map or (
        model_type in K3_PER_EXPERT_MXFP4
        and f"{epfx}0.{K3_PER_EXPERT_MXFP4[model_type][0][0]}."
            f"{K3_PER_EXPERT_MXFP4[model_type][1]}" in weight_map)
    if packed:
        raise NotImplementedError(
            f"layer {layer}: quantize_layers excludes this layer, but {model_type!r} stores "
            f"its experts packed (e.g. {sorted(keys)[0]!r}), and this loader can only read "
            "that layout by quantizing it. Excluding a layer means leaving it in the base "
            "dtype, which is supported for the fused ('gate_up_proj'/'down_proj') and "
            "per-expert Linear ('<e>.gate_proj.weight') spellings only. Quantize this layer "
            "too, or drop quantize_layers."
        )
    return set(), []                      # unrecognized: unchanged, whatever the walk does


_FULL_SHA = re.compile(r"[0-9a-f]{40}")


#: what the streaming loader needs from a snapshot (the same files its ``allow_patterns`` select)
_SNAPSHOT_PATTERNS = ["*.safetensors", "*.json", "tokenizer*", "*.model", "*.txt"]


def _hub_offline() -> bool:
    """huggingface_hub's own offline flag (``constants.HF_HUB_OFFLINE``), so the truthiness rules match it exactly."""
    from huggingface_hub import constants as _hub_constants
    return bool(getattr(_hub_constants, "HF_HUB_OFFLINE", False))


def _pinned_snapshot_offline(model_id: str, revision) -> str | None:
    """The local snapshot of a full-sha `revision`, verified complete, when the Hub is offline; else None.

    Offline, some huggingface_hub releases resolve ``snapshot_download(..., revision=<commit sha>)`` from the
    ``trees/<sha>.json`` listing a download writes next to the snapshot. A cache that holds the complete snapshot but
    no listing (written by an older release, or assembled by hand) makes them list the repo tree online, and they
    raise ``OfflineModeIsEnabled``. Observed on 1.26.0, 1.27.0, 1.28.0, 1.29.0, 1.30.0, 1.31.0, 1.32.0, 1.33.0, 2.0.0,
    2.1.0 and 2.1.1; 0.36.0, 1.0.0, 1.20.0, 1.25.0 and 2.2.0 resolve such a cache locally (releases not listed were
    not tested). Offline, with a full 40-hex commit whose snapshot directory exists, this resolves the snapshot
    locally with no Hub call and then CHECKS it: ``config.json`` and the safetensors index plus every shard it names
    (or a single ``model.safetensors``) must be present -- the files the loader reads; it loads no tokenizer. A
    missing file is refused by name -- a partial snapshot is never loaded.
    A pinned commit with no snapshot in the cache is refused (offline cannot fetch it). Any other case -- online,
    or a branch-name revision -- returns None and keeps ``snapshot_download``'s own behaviour (offline, a branch
    name resolves through ``refs/<branch>`` there; the ref is never guessed here)."""
    if not (_hub_offline() and revision and _FULL_SHA.fullmatch(str(revision))):
        return None
    from huggingface_hub import constants as _hub_constants
    repo_dir = os.path.join(_hub_constants.HF_HUB_CACHE, "models--" + model_id.replace("/", "--"))
    snap = os.path.join(repo_dir, "snapshots", str(revision))
    if not os.path.isdir(snap):
        raise FileNotFoundError(
            f"{model_id!r}@{revision}: offline (HF_HUB_OFFLINE) and the pinned snapshot is not in the cache "
            f"({snap}); it cannot be fetched offline")
    missing = [f for f in ("config.json",) if not os.path.exists(os.path.join(snap, f))]
    index = os.path.join(snap, "model.safetensors.index.json")
    if os.path.exists(index):
        with open(index) as f:
            shards = sorted(set(json.load(f)["weight_map"].values()))
        missing += [s for s in shards if not os.path.exists(os.path.join(snap, s))]
    elif not os.path.exists(os.path.join(snap, "model.safetensors")):
        missing.append("model.safetensors.index.json or model.safetensors")
    if missing:
        raise FileNotFoundError(
            f"{model_id!r}@{revision}: the pinned snapshot {snap} is incomplete offline, missing {missing}; "
            "refusing to load a partial checkpoint")
    return snap


def _resolve_snapshot(model_id: str, revision) -> str:
    """The directory the shards are streamed from: a local directory as given; offline with a pinned full sha, the
    verified local snapshot (:func:`_pinned_snapshot_offline`, no Hub call); otherwise ``snapshot_download``."""
    if os.path.isdir(model_id):
        return model_id
    return _pinned_snapshot_offline(model_id, revision) or snapshot_download(
        model_id, allow_patterns=_SNAPSHOT_PATTERNS, revision=revision)


def _record_checkpoint_revision(model_id, revision, config, snap):
    """Log which checkpoint commit is being loaded and refuse a pinned one that did not resolve.

    transformers records the commit it resolved the config from on ``config._commit_hash`` (parsed
    from the cache path ``snapshots/<sha>/``, so it is populated offline too); the snapshot folder's
    basename is the same sha for the shards. Both are checked against each other and against a
    full-sha ``revision``: the loader must never stream bytes from a commit the caller did not pin.
    A local directory carries no hub revision -- recorded as such, nothing to verify (#404)."""
    if os.path.isdir(model_id):
        note = f" (revision={revision!r} noted, not verifiable for a local directory)" if revision else ""
        log(f"  checkpoint: local directory {model_id}{note}")
        return None
    resolved = getattr(config, "_commit_hash", None)
    snap_sha = os.path.basename(os.path.normpath(snap))
    snap_sha = snap_sha if _FULL_SHA.fullmatch(snap_sha) else None
    if resolved and snap_sha and resolved != snap_sha:
        raise ValueError(
            f"{model_id!r}: the config resolved to commit {resolved} but the snapshot folder is "
            f"{snap_sha} -- two different commits; refusing to stream shards that do not belong to "
            "the config they would be loaded under."
        )
    resolved = resolved or snap_sha
    if revision and _FULL_SHA.fullmatch(revision) and resolved and resolved != revision:
        raise ValueError(
            f"{model_id!r}: revision={revision} was requested but the snapshot resolved to commit "
            f"{resolved}. Refusing to load bytes the caller did not pin."
        )
    if resolved and getattr(config, "_commit_hash", None) is None:
        config._commit_hash = resolved  # the receipt slot transformers uses; fill it from the snapshot
    log(f"  checkpoint: {model_id} @ {resolved or 'unknown commit'} "
        f"(requested {revision if revision else 'main, unpinned'})")
    return resolved


def check_admission(config) -> None:
    """Raise ``NotImplementedError`` if :func:`load_moe_4bit_streaming` refuses this config; return otherwise.

    Decided from the config alone -- no snapshot, no shard, no device. The loader calls it first; callers that
    want the answer before loading anything use :func:`admission_refusal`.
    """
    model_type = getattr(config, "model_type", None)
    if model_type not in SUPPORTED_ARCHITECTURES and not _read_compatible_convention(model_type):
        raise NotImplementedError(
            f"Unsupported model_type={model_type!r}. This streaming loader handles SwiGLU fused-MoE "
            f"checkpoints: {sorted(SUPPORTED_ARCHITECTURES)}, plus every model_type on the "
            f"{sorted(READ_COMPATIBLE_CONVENTIONS)} conventions, whose per-expert layout the "
            "generic read takes from the convention itself. The Experts4bit primitive is "
            "model-agnostic — see the README 'Scope' note to adapt another architecture."
        )
    # Identity ("zero-computation") experts: the router indexes a space LARGER than the
    # set of real experts, and the surplus indices route the token through nn.Identity
    # scaled by its router weight instead of a SwiGLU. LongCat-Flash ships 512 routed +
    # 256 identity by default. Experts4bit has no identity slot, so a load would build
    # only the routed experts while the router keeps emitting indices past the end.
    #
    # Refusing here rather than at the read: the surplus experts carry gate_up rows the
    # forward never reads and NO down_proj at all, so the per-expert reader consumes
    # 0..n_routed-1, leaves the rest orphaned, and the generic weight walk then dies on
    # `get_submodule(".../experts.10")` with `ExpertsLoRA has no attribute '10'` — which
    # says nothing about what is actually unsupported.
    _gate_cfg = getattr(config, "text_config", None) or config   # same unwrap as lm_config below
    n_zero = int(getattr(_gate_cfg, "zero_expert_num", 0) or 0)
    if n_zero > 0:
        n_routed = int(getattr(_gate_cfg, "n_routed_experts", 0) or 0)
        raise NotImplementedError(
            f"{model_type!r} uses {n_zero} identity ('zero-computation') experts on top of "
            f"{n_routed} routed experts. The router selects over all {n_routed + n_zero}, and "
            "indices at or above the routed count pass the token through unchanged rather "
            "than through a SwiGLU expert. Experts4bit represents SwiGLU experts only, so "
            "loading just the routed ones would leave the router addressing experts that do "
            "not exist. Supporting this needs an identity slot in the expert primitive, not "
            "a loader change."
        )
    # A convention-admitted family runs the GENERIC Experts4bit, whose epilogue is a
    # plain act(gate) * up. A family whose experts CLAMP instead computes a different
    # function over the same weights, and every shape agrees — so the load succeeds,
    # nothing raises, and only the outputs are wrong. That is the failure this loader
    # exists to prevent, and it is worth refusing a family for.
    #
    # Scoped to the convention-admitted path on purpose: gpt_oss and deepseek_v4 also
    # clamp, are named in SUPPORTED_ARCHITECTURES, and carry their own Experts4bit
    # subclasses that reproduce their epilogues faithfully. They must not be refused.
    if model_type not in SUPPORTED_ARCHITECTURES and _declares_clamped_swiglu(_gate_cfg):
        raise NotImplementedError(
            f"{model_type!r} stores its experts in a layout this loader reads, but runs a "
            f"CLAMPED SwiGLU over them (swiglu_alpha="
            f"{getattr(_gate_cfg, 'swiglu_alpha', None)}, swiglu_limit="
            f"{getattr(_gate_cfg, 'swiglu_limit', None)}) rather than the plain "
            "act(gate) * up the generic Experts4bit computes. Sharing a STORAGE convention "
            "does not make the epilogue shared. Loading it here would place every weight "
            "correctly, agree on every shape, raise nothing — and compute the wrong expert "
            "function. Supporting it needs an Experts4bit subclass carrying that epilogue "
            "(see arch/gptoss.py and arch/deepseek_v4.py for the two that do), not a change "
            "to this gate."
        )


def admission_refusal(config):
    """Why :func:`load_moe_4bit_streaming` would refuse this config (the loader's own message), or ``None``.

    The same gates as :func:`check_admission`, as an answer rather than an exception, so a caller can ask before
    it downloads or allocates anything (:func:`experts4bit_qlora.arch.topology.describe_moe` does).
    """
    try:
        check_admission(config)
    except NotImplementedError as e:
        return str(e)
    return None


def _stage_expert_rows_on_host(device, offload):
    """Whether the streaming loader fuses per-expert rows in host memory (see ``load_moe_4bit_streaming``)."""
    return bool(offload) and torch.device(device).type == "cuda"


def _release_cached_pinned_blocks(device) -> int | None:
    """Return the caching host allocator's free pinned blocks to CUDA after a CUDA load; the bytes released, or None.

    safetensors (0.8) reads each tensor opened with ``device="cuda"`` through a pinned host block from torch's caching
    host allocator. The allocator rounds each block up to a power of two and keeps it cached once the copy is done, so a
    load leaves one cached block per size class of the dense tensors it read: 2 GiB + 64 + 4 + 1 MiB on Qwen3-235B, whose
    embedding and head are 1.24 GB each. The release itself is :func:`~experts4bit_qlora.engines.host_heap.
    release_cached_pinned_memory` (the same call ``serve_paged`` makes after its build); this adds the collection and the
    synchronisation before it and the logged amount. Live pinned tensors (the offloaded expert homes) are untouched.
    Measured on the RTX A2000 at 2 layers (bench/pinned-host-cache): Qwen3-235B released 2,219,843,841 B and
    Mixtral-8x22B 688,013,313 B, with the step-0 loss bitwise unchanged."""
    if torch.device(device).type != "cuda" or not torch.cuda.is_available():
        return None
    import gc

    from .engines.host_heap import release_cached_pinned_memory

    stats = getattr(torch.cuda, "host_memory_stats", None)

    def owned():
        return stats().get("allocated_bytes.current", 0) if stats is not None else 0

    gc.collect()                    # a pinned tensor kept alive only by a reference cycle frees its block here
    torch.cuda.synchronize()        # a block whose copy is still in flight is not free yet
    before = owned()
    if not release_cached_pinned_memory():
        return None
    freed = before - owned()
    if freed > 0:
        log(f"  released {freed / 2**30:.2f} GiB of cached pinned host blocks (the load's pinned reads)")
    return freed


def load_moe_4bit_streaming(
    model_id, device, dtype, r, alpha, offload=False, pin=True, prefetch=False, quant_type="nf4",
    trust_remote_code=None, arena=None, quantize_layers=None, arena_train=False,
    revision=None, blocksize=64, merged_arena=None,
):
    """Stream the checkpoint onto the GPU, quantizing fused experts to Experts4bit on the way.

    Peak memory stays low: the model is built on ``meta`` (no allocation), then each tensor is read
    one at a time directly to the GPU. The big fused-expert stacks are quantized to NF4 (~3.5x
    smaller) and their bf16 source is dropped immediately, so the full bf16 model never exists.

    When ``offload`` is set, each layer's frozen 4-bit experts are moved to (pinned, if ``pin``) CPU
    RAM *immediately after that layer is built* — inside the per-layer loop, never in a post-load
    pass (which would require every layer's experts GPU-resident first, defeating the purpose). A
    forward pre-hook streams a layer's experts back to the GPU just-in-time and a post-hook evicts
    them, so only one layer's experts are GPU-resident at a time (see :mod:`experts4bit_qlora.engines.offload`).

    ``prefetch=True`` (with ``offload``) additionally links the layers for inference prefetch: during
    ``no_grad`` forwards each layer starts the next layer's H2D copy on a side stream, overlapping
    transfer with compute at a bounded cost of two layers resident instead of one. Training forwards
    are unaffected. See :func:`experts4bit_qlora.engines.offload.enable_inference_prefetch`.
    Use it when a fused-expert MoE (transformers v5 stores each layer's experts as one 3-D
    parameter) must be loaded in 4-bit: ``load_in_4bit=True`` leaves those stacks in bf16.
    Expects a Hugging Face model id or local snapshot of a family in
    ``docs/ARCHITECTURE_SUPPORT.md``; returns ``(model, config)`` with each fused expert
    stack an :class:`Experts4bit` base under an :class:`ExpertsLoRA` wrapper, with two
    exceptions: gpt-oss stacks are built bare by default (``GptOssExperts4bit``, no
    wrapper, a one-time NOTE in the log; ``E4B_GPTOSS_EXPERT_LORA=1`` wraps them in
    ``ExpertsLoRA``'s unfused reference loop, which applies their biases and clamped GLU,
    and whose cost against the fused route is unmeasured; expert LoRA for that family is
    otherwise grouped-nf4-gemm's ``mxfp4_qlora.ExpertsMxfp4LoRA``), and an ``arena=`` load
    builds bare meta-backed stacks unless ``arena_train=True`` (verify with
    :func:`experts4bit_qlora.verify_moe_4bit` ``strict=True``). Refuses an
    unsupported ``model_type`` (``NotImplementedError``), identity-expert families,
    ``prefetch`` without ``offload`` and ``E4B_GPTOSS_EXPERT_LORA=1`` with ``offload``
    (``ValueError``), and ``arena_train=True`` over an expert stack the arena path cannot
    train faithfully (``EpilogueContractError``, decided on the module's STRUCTURE by
    :func:`experts4bit_qlora.assert_stock_epilogue` -- gpt-oss's biases, never a family
    name). Needs a CUDA device and the ``[train]`` extra (transformers >= 5.0);
    the checkpoint comes from the network on first fetch, from the hub cache after that --
    offline included, when the load is pinned to the staged sha (next paragraph) -- or from
    a local directory, which needs no hub at all. See
    ``docs/solutions/bitsandbytes-moe-load-in-4bit-still-ooms.md``.

    ``revision`` pins the checkpoint (a commit sha, branch or tag). It reaches BOTH hub lookups --
    the config and the snapshot -- so a snapshot staged with ``snapshot_download(model_id,
    revision=<sha>)`` loads offline as-is (such a snapshot writes no ``refs/main``; the unpinned
    lookup has nothing to resolve), and online the pinned bytes load rather than whatever ``main``
    points to today. The commit actually loaded is recorded on ``config._commit_hash`` and in the
    log; a full-sha ``revision`` whose snapshot resolves to a different commit is refused
    (``ValueError``) instead of loading other bytes. A local directory has no hub revision: the
    argument is noted and ignored there. Default ``None`` = ``main``, as before (#404).

    A merged arena (``bake_mode: "nf4-merged"``, :mod:`experts4bit_qlora.merged_arena`) is refused right after its index
    is read, unless ``merged_arena`` is that arena's own ``merge`` block, as the paged server passes it once refusal 13
    has matched it to its adapter. Nothing else reads a merged arena.
    """
    # Validate + canonicalize the scheme FIRST: a bad quant_type must fail here, before any config
    # fetch, snapshot download, or shard read — and the Experts4bit-vs-ExpertsNbit class dispatch
    # below must only ever see canonical names (an unnormalized alias would silently pick the
    # wrong class).
    quant_type = normalize_quant_type(quant_type)
    from .util import host_cpu_report
    _cpu = host_cpu_report()
    log(f"  host CPUs: {_cpu['visible_cpus']} visible, quota {_cpu['cpu_quota'] if _cpu['cpu_quota'] is not None else 'none'}, "
        f"torch threads {_cpu['torch_threads']}, OMP_NUM_THREADS={_cpu['omp_num_threads']}")
    # #344: staged synchronisation, armed HERE because this is the last point in the load
    # at which CUDA_LAUNCH_BLOCKING can still reach the driver — nothing above has touched
    # the GPU (the model is built on `meta`, the snapshot comes off disk), so a caller that
    # has imported torch without initialising CUDA still gets the launch-exact behaviour.
    # Inert without E4B_LOAD_SYNC_DEBUG=1.
    trace = _LoadStageTrace(device)
    trace.arm()
    # `arena`: serve experts from a baked NVMe arena instead of reading them out of
    # the checkpoint. The expert modules are then built on `meta` (shapes only), so
    # expert storage stops scaling with model size — the difference between needing
    # 1.446 TB of host RAM for Kimi K3's experts and needing none. Pair with
    # `nvme_experts.enable_nvme_residency` on the SAME arena to make them reachable;
    # the model returned here cannot run until you do.
    arena_index = None
    if arena is not None:
        from nvme_arena import load_index

        from .merged_arena import refuse_merged
        arena_index = load_index(arena)
        # a merged arena is never read as a base: only the paged server's verified merge block (refusal 13) lets one
        # through, as `merged_arena` (bench/d0/ARENA-DESIGN.md)
        refuse_merged(arena_index, arena, merged_arena)
    if prefetch and not offload:
        raise ValueError(
            "prefetch=True requires offload=True: prefetch overlaps the H2D copy of offloaded "
            "experts; without offload there is nothing to prefetch."
        )
    # Architectures that live in the checkpoint's own repo (Kimi K3's Kimi-Linear
    # attention + SiTU activation are not in any released transformers) cannot be
    # read at all without this, and AutoConfig raises BEFORE the architecture gate
    # below, so the failure is opaque: "The repository ... contains custom code".
    # Opt-in only — executing repo code is the caller's decision, never a default.
    if trust_remote_code is None:
        trust_remote_code = os.environ.get("E4B_TRUST_REMOTE_CODE", "0") == "1"
    config = AutoConfig.from_pretrained(model_id, trust_remote_code=trust_remote_code, revision=revision)
    model_type = getattr(config, "model_type", None)
    check_admission(config)
    # Source the expert path and gate from the convention when one exists (the
    # broad source of truth), else this loader's own map. Both agree today; this
    # makes the convention authoritative so a non-gated family loads correctly.
    expert_rel, has_gate = expert_layout_for(model_type)
    # Multimodal configs (e.g. Gemma-4's `gemma4`) nest the language model under `text_config` and
    # prefix its checkpoint tensors with `model.language_model.` (vision lives under `model.vision_tower.`).
    # Build + size the text tower from that sub-config, and strip the prefix so keys match the text
    # CausalLM we build (dropping the vision weights we don't need for a text-only QLoRA).
    lm_config = getattr(config, "text_config", None) or config
    ckpt_prefix = ""
    if lm_config is not config:
        ckpt_prefix = MULTIMODAL_CKPT_PREFIX.get(model_type, "model.language_model.")
    act_name, act_field = _expert_activation_name(lm_config, model_type)
    try:
        activation = ACT2FN[act_name]
    except KeyError:
        # gpt_oss uses its own clamped GLU inside GptOssExperts4bit; the generic
        # activation is unused on that path, so a missing ACT2FN entry is fine.
        # Kimi K3 declares hidden_act="situ", defined only in the checkpoint's own
        # modeling code -- surface it rather than silently substituting SiLU, which
        # would load a model that runs but is quietly WRONG.
        activation = None
        if act_name not in ("silu", None) and model_type not in ("gpt_oss",):
            log(f"  NOTE: activation {act_name!r} (from {act_field}) is not in "
                f"transformers' ACT2FN; the fused-expert GLU will use the module "
                f"default. Verify numerics before trusting outputs from this checkpoint.")

    # A trust_remote_code checkpoint fetches its modeling module separately from its weights; pin
    # that fetch to the same commit (transformers' ``code_revision``), otherwise a pinned load runs
    # ``main``'s code against pinned weights. Code hosted in a DIFFERENT upstream repository
    # (``owner/repo--module.Class``) has its own history, so ``revision`` cannot pin it: say so.
    remote_code_kwargs = {}
    remote_ref = (getattr(lm_config, "auto_map", None) or {}).get("AutoModelForCausalLM")
    if trust_remote_code and revision and remote_ref:
        if "--" in remote_ref:
            log(f"  NOTE: remote modeling code {remote_ref!r} lives in another repository; "
                f"revision={revision!r} pins the weights, not that code")
        else:
            remote_code_kwargs["code_revision"] = revision
    with init_empty_weights():
        model = AutoModelForCausalLM.from_config(
            lm_config, dtype=dtype, trust_remote_code=trust_remote_code, **remote_code_kwargs)

    snap = _resolve_snapshot(model_id, revision)
    _record_checkpoint_revision(model_id, revision, config, snap)
    index_path = os.path.join(snap, "model.safetensors.index.json")
    if os.path.exists(index_path):
        raw_map = json.load(open(index_path))["weight_map"]
    else:
        # Small checkpoints ship unsharded with no index (e.g. granite-3.0-1b-a400m-instruct is a
        # single model.safetensors): synthesize the weight map from the file's own key list so the
        # streaming path below works unchanged. Anything else is unstreamable — fail loudly.
        single_path = os.path.join(snap, "model.safetensors")
        if not os.path.exists(single_path):
            raise FileNotFoundError(
                f"{model_id!r}: found neither 'model.safetensors.index.json' (sharded) nor "
                "'model.safetensors' (single-file) in the snapshot — nothing this loader can stream."
            )
        with safe_open(single_path, framework="pt", device="cpu") as f:
            raw_map = dict.fromkeys(f.keys(), "model.safetensors")
    rewrite = CKPT_KEY_REWRITERS.get(model_type)
    if rewrite is not None:
        # This checkpoint ships in the model's OWN reference spelling. transformers can
        # convert it — via the central `conversion_mapping.py`, not a class attribute —
        # but only inside `from_pretrained`, which this streaming loader never calls.
        # So rewrite every key here, including adding the `model.` prefix, which the
        # ckpt_prefix branch below cannot express (it only ever strips).
        weight_map, orig_key, dropped = {}, {}, []
        for k, f in raw_map.items():
            new = rewrite(k)
            if new is None:
                dropped.append(k)     # no module to receive it (V4: the MTP block; the
                                      # class-declared route below covers ERNIE-4.5's)
                continue
            weight_map[new] = f
            orig_key[new] = k
        if dropped:
            log(f"  skipped {len(dropped)} checkpoint tensor(s) the text model does not "
                f"build, e.g. {dropped[0]}")
        if not weight_map:
            raise RuntimeError(
                f"{model_id!r}: the {model_type!r} key rewriter mapped every one of "
                f"{len(raw_map)} checkpoint tensors to nothing. That is a rewriter/"
                "checkpoint mismatch, not an empty checkpoint — refusing rather than "
                "proceeding to build a model with no weights."
            )
    elif ckpt_prefix:
        weight_map = {"model." + k[len(ckpt_prefix) :]: f for k, f in raw_map.items() if k.startswith(ckpt_prefix)}
        orig_key = {"model." + k[len(ckpt_prefix) :]: k for k in raw_map if k.startswith(ckpt_prefix)}
        # The output head does NOT carry the text-tower prefix — Gemma-4 keeps it at top level
        # (`lm_head.weight`), K3 one level up from its own (`language_model.lm_head.weight`) — so
        # the filter above drops it along with the vision weights. For a tied checkpoint that is
        # right (there is no head on disk); for an UNTIED one the tie fallback further down would
        # then install embed_tokens as the output head with no error and plausible-shaped logits.
        # Recover it here so the ordinary `_assign` pass places the real head.
        heads = [k for k in raw_map if k.endswith("lm_head.weight") and not k.startswith(ckpt_prefix)]
        if len(heads) == 1:
            weight_map["lm_head.weight"] = raw_map[heads[0]]
            orig_key["lm_head.weight"] = heads[0]
            log(f"  untied output head recovered from {heads[0]!r} (outside the "
                f"{ckpt_prefix!r} text-tower prefix, which would otherwise drop it)")
        elif len(heads) > 1:
            # Ambiguous rather than absent: picking one would be a guess about which tower's
            # head this text model wants. Say so here; the tie gate below decides the outcome.
            log(f"  NOTE: {len(heads)} candidate output heads outside {ckpt_prefix!r} "
                f"({heads[:3]}) — none assigned automatically")
    else:
        weight_map, orig_key = raw_map, {k: k for k in raw_map}
    # Normalize legacy tensor spellings (see LEGACY_KEY_RENAMES) so the expert-fusing loop and the
    # non-expert `_assign` pass below only ever see the module names the built model actually has;
    # `orig_key` keeps pointing at the on-disk spelling the shard must be read with.
    for old, new in LEGACY_KEY_RENAMES.get(model_type, ()):
        for key in [k for k in weight_map if old in k]:
            renamed = key.replace(old, new)
            weight_map[renamed] = weight_map.pop(key)
            orig_key[renamed] = orig_key.pop(key)
    # The CHECKPOINT side of the expert layout, kept separate from the module side
    # (`expert_rel`, above) because for the mixtral family they disagree: experts are
    # stored under `block_sparse_moe.experts` and built under `mlp.experts`. Indexed
    # once here rather than probed per layer, so a family whose container this loader
    # would not have guessed is read by matching, not by string assembly.
    conv = _convention_or_none(model_type)
    # The convention's renames reach the key PREFIX too, so a family shipping
    # `backbone.layers.N.` where the tree declares `model.layers.N.` is indexed and
    # placed like any other rather than reading as entirely dense (nemotron_h; the
    # loader-side twin of the planner fix in e4b#643/#644).
    weight_map, orig_key = _rename_ckpt_prefixes(conv, weight_map, orig_key)
    ckpt_experts = _index_per_expert_keys(conv, weight_map)
    trace.enter("map shard handles")
    _shards = sorted(set(weight_map.values()))
    _big_name, _big_size = _largest_shard(snap, weight_map)
    if trace.enabled:
        log(f"  [sync] mapping {len(_shards)} shard(s), largest {_big_name!r} at {_gib(_big_size)}")
    try:
        handles = {f: safe_open(os.path.join(snap, f), framework="pt", device=device) for f in _shards}
    except Exception as exc:
        # A host that cannot map the largest shard fails RIGHT HERE with the mapping's own
        # error ("Cannot allocate memory"), which is the readable end of #344's failure
        # family. Say what was being mapped and against what headroom, so the readable case
        # and the opaque one below carry the same facts.
        _explain_shard_failure(exc, None, _big_name, snap, weight_map, device, trace)
        raise
    trace.sync("map shard handles")

    raw_readers = {}
    host_handles = {}              # host-side handles, opened on first use (see `stage_on_host`)

    def _read(name, host=False):
        fn = weight_map[name]
        try:
            if host:
                if fn not in host_handles:
                    host_handles[fn] = safe_open(os.path.join(snap, fn), framework="pt", device="cpu")
                return host_handles[fn].get_tensor(orig_key[name])
            return handles[fn].get_tensor(orig_key[name])
        except AttributeError:
            # The shard declares a dtype this torch build has no name for (see
            # _RawShardReader). Fall back to the bytes. Deliberately narrow: only this
            # one failure mode reaches here, and anything else still raises.
            if fn not in raw_readers:
                raw_readers[fn] = _RawShardReader(os.path.join(snap, fn))
                log(f"  {fn}: holds a dtype this torch ({torch.__version__}) cannot "
                    f"name; reading those tensors as raw uint8")
            raw = raw_readers[fn].u8(orig_key[name])
            return raw if host else raw.to(device)

    def get(name, host=False):
        # EVERY shard read funnels through here, which is why the diagnosis hangs off it:
        # #344's two recorded host failures both surfaced at this call, at two unrelated
        # points in the load (the first expert read on one host, the non-expert pass on
        # another), and both said only "CUDA error: invalid argument". The shard size and
        # the host's headroom — the facts that make that sentence readable — were known
        # right here and were never printed. Costs nothing until something raises.
        trace.enter(f"read {name!r} from {weight_map[name]}")
        try:
            tensor = _read(name, host)
        except Exception as exc:
            _explain_shard_failure(exc, name, weight_map[name], snap, weight_map, device, trace)
            raise
        trace.tick()
        return tensor

    n_layers = lm_config.num_hidden_layers
    n_exp = getattr(lm_config, "num_local_experts", None) or getattr(lm_config, "num_experts", None)
    log(f"  fusing + quantizing experts (up to {n_layers}x{n_exp}) to "
        f"{'a per-layer store map' if isinstance(quantize_layers, Mapping) else quant_type} (streaming)...")
    expert_keys = set()
    narrowed = []                  # tensors `_fit` had to narrow, reported after the walk
    meta_expert_prefixes = []      # arena mode: modules whose buffers stay on meta
    bare_logged = False            # the one-time NOTE for a family built without an adapter
    offload_handles = []
    n_moe = 0
    # With offload on CUDA the per-expert rows are read into host memory and fused there, and only the fused stacks go to
    # the device to be quantized. Read straight to the device, a layer's rows and its fused stacks coexist there (about
    # twice the layer's experts in the checkpoint dtype), more than a card sized for one layer's experts at a time holds.
    # Stacking and concatenation are copies and the quantization still runs on the device, so the stored bytes are the
    # same; the resident (no-offload) path reads to the device exactly as before.
    stage_on_host = _stage_expert_rows_on_host(device, offload)
    # The host-side stack/cat of every layer's expert rows runs on torch's intra-op pool, which torch sizes to the CPUs it can
    # SEE. A rented container can see a 256-thread host and hold a CFS quota of about 31 CPUs; the pool then spins through the
    # quota and is throttled every period (the only slow offloaded loads in the receipt store, machine 51612, ~35x). For the
    # staged loop, cap the pool at the quota (and the affinity); restored after. Bytes are unchanged, only speed.
    from .util import capped_intra_op_threads, host_thread_cap
    _cap = host_thread_cap(_cpu) if stage_on_host else None
    if _cap is not None and _cap < torch.get_num_threads():
        log(f"  host-side fuse: intra-op threads {torch.get_num_threads()} -> {_cap} (the container's CPU quota / affinity)")
    _thread_cap = capped_intra_op_threads(_cap)
    with _thread_cap:
        for i in range(n_layers):
            # MODULE side: where this layer's fused experts are PLACED in the built tree.
            # Not a checkpoint prefix — for the mixtral family the checkpoint keys live
            # under `block_sparse_moe.experts` instead, and `ckpt_experts` holds those.
            epfx = f"model.layers.{i}.{expert_rel}."  # "...mlp.experts." / "...experts." / "...block_sparse_moe.experts."
            trace.phase(f"quantise experts: layer {i}")
            # CHECKPOINT side: this layer's per-expert keys as the convention parses them.
            # Empty for the pre-fused and dedicated-quant families, whose branches below
            # address the checkpoint by `epfx` because there the two sides do coincide.
            layer_experts = ckpt_experts.get(i, {})
            spec = layer_store_spec(quantize_layers, i, quant_type, blocksize)
            layer_quant_type, layer_blocksize = spec if spec is not None else (None, None)
            if spec is None:
                # Deliberately left in the base dtype: the original module stays in place,
                # unquantized. It still has to be FILLED, and a per-expert checkpoint cannot
                # fill a fused module key-by-key — see `_place_unquantized_experts`.
                consumed, cut = _place_unquantized_experts(
                    model, epfx, i, weight_map, get, n_exp, model_type,
                    layer_experts, has_gate)
                expert_keys |= consumed
                narrowed += cut
                continue
            if isinstance(quantize_layers, Mapping) and (arena_index is not None or model_type in K3_PER_EXPERT_MXFP4
                                                         or f"{epfx}gate_up_proj_blocks" in weight_map):
                raise NotImplementedError(
                    f"layer {i}: a per-layer store map is not supported on this load path "
                    f"({'arena' if arena_index is not None else model_type!r} packs its experts by a family "
                    "convention with one store for the whole model). Use a single quant_type here, or a set "
                    "of layers to quantize, and raise an issue if a map is what this family needs."
                )
            if arena_index is not None:
                # Every checkpoint key under the experts submodule is an expert tensor,
                # so they can be marked read-and-skipped WITHOUT reading them — which is
                # the whole point: at K3 scale the read is what does not fit. Union the
                # convention's own keys so a family stored under a container `epfx` does
                # not name is marked consumed rather than falling through as dense; for
                # every family whose two sides coincide this adds nothing.
                keys = {k for k in weight_map if k.startswith(epfx)}
                keys |= {k for byidx in layer_experts.values() for k in byidx.values()}
                if not keys:
                    continue                                  # dense layer
                bias = sorted(k for k in keys if k.endswith("_bias"))
                gptoss_arena = bool(bias) and f"{epfx}gate_up_proj_bias" in weight_map
                if bias and not gptoss_arena:
                    raise NotImplementedError(
                        f"layer {i}: arena serving does not carry per-expert biases "
                        f"in this layout ({bias[0]!r} and {len(bias) - 1} more). "
                        "Only the gpt-oss spelling (gate_up_proj_bias/"
                        "down_proj_bias) is handled. Refusing rather than dropping "
                        "them, which would silently change the epilogue.")
                expert_keys.update(keys)
                n_moe += 1
                from .engines.nvme_experts import build_meta_experts
                v4 = model_type == "deepseek_v4"
                arena_cls = (GptOssExperts4bit if gptoss_arena
                             else DeepseekV4Experts4bit if v4 else None)
                experts = build_meta_experts(
                    arena_index, n_exp, has_gate=True, activation=activation,
                    compute_dtype=dtype, quant_type=quant_type,
                    cls=arena_cls)
                if gptoss_arena:
                    # The WEIGHTS stream from the arena; the biases are two small
                    # [E, 2I] / [E, H] stacks that must stay resident, exactly as on
                    # the direct path. Skipping them would leave the gpt-oss epilogue
                    # reading absent buffers -- the failure this branch used to refuse
                    # outright. De-interleave the gate_up bias the SAME way
                    # `from_gptoss` de-interleaves the gate_up ROWS: the arena's baked
                    # stack is already gate-block-then-up-block, so a bias left
                    # interleaved would pair every gate row with an up row's bias and
                    # score a plausible, wrong model.
                    _gub = get(f"{epfx}gate_up_proj_bias").to(dtype)
                    experts.register_buffer(
                        "gate_up_bias",
                        torch.cat([_gub[:, 0::2], _gub[:, 1::2]], dim=1).to(device),
                        persistent=True)
                    experts.register_buffer(
                        "down_bias",
                        get(f"{epfx}down_proj_bias").to(dtype).to(device),
                        persistent=True)
                    # The DIRECT path is the epilogue oracle; take its scalars,
                    # not a config lookup (the released config ships no `alpha`,
                    # and this function's own `alpha` argument is the LoRA one).
                    experts.alpha = GPTOSS_ALPHA
                    experts.limit = float(getattr(lm_config, "swiglu_limit",
                                                  GPTOSS_LIMIT))
                if v4:
                    # The epilogue has to survive the arena path too — see the bare-build
                    # note on the resident branch below.
                    experts.limit = float(
                        getattr(lm_config, "swiglu_limit", DEFAULT_SWIGLU_LIMIT))
                # Wrap in the adapter ONLY when the caller says they are training.
                # Without this the arena path is serving-only and silently ignores
                # r/alpha: it produced bare meta experts, so
                # `enable_nvme_train_residency` — whose whole purpose is training over
                # arena-resident experts — refused every module with "not
                # ExpertsLoRA-wrapped", and its documented usage could not run at all.
                # Found on an A5000 (2026-08-12); no CPU test caught it because every
                # fixture constructs `ExpertsLoRA` by hand, so they exercised the
                # mechanism and never the path a caller actually takes.
                #
                # Gated on an EXPLICIT flag, not on `r`, and that distinction is
                # load-bearing: `r` is a required positional and the documented
                # SERVING example passes `r=8` before calling
                # `enable_mxfp4_nvme_residency`, which refuses wrapped modules. Keying
                # off `r` would have fixed training by breaking serving.
                #
                # `.to(device)` is deliberately NOT used here, unlike the resident
                # branches: the base is on `meta` by design — that is what makes
                # expert storage independent of model size — and moving a meta tensor
                # to CUDA raises. Only the adapter, which is real, is moved.
                if arena_train:
                    # The wrapper re-implements the expert forward, so it is only
                    # faithful for the stock epilogue (or one the base hands over via
                    # `_apply_gate`, as V4 does). gpt-oss's meta stack -- biases +
                    # clamped GLU, no hook -- used to be wrapped here regardless, and
                    # trained against a plain SwiGLU with nothing raised (#397).
                    # `ExpertsLoRA.__init__` refuses that by STRUCTURE; this adds the
                    # layer and family to the message so the refusal reads as a
                    # loader decision, not a stray TypeError from inside a constructor.
                    try:
                        assert_stock_epilogue(experts)
                    except EpilogueContractError as exc:
                        raise EpilogueContractError(
                            f"layer {i} ({model_type!r}): arena_train=True asked for an "
                            f"ExpertsLoRA over this layer's arena-backed experts, but {exc}"
                        ) from exc
                    experts = ExpertsLoRA(experts, r=r, alpha=alpha, dtype=dtype)
                    for _n in ("gate_up_lora_A", "gate_up_lora_B",
                               "down_lora_A", "down_lora_B"):
                        _p = getattr(experts, _n)
                        setattr(experts, _n, torch.nn.Parameter(
                            _p.data.to(device), requires_grad=_p.requires_grad))
                parent, leaf = epfx.rstrip(".").rsplit(".", 1)
                setattr(model.get_submodule(parent), leaf, experts)
                meta_expert_prefixes.append(epfx)
                continue
            if f"{epfx}gate_up_proj_blocks" in weight_map:
                # GPT-OSS: experts on disk as MXFP4 (blocks/scales) + per-projection biases.
                # Dequantize the exact released bytes, then build a faithful NF4 expert
                # (biases + clamped GLU) — see gptoss.py. Built bare by default. The opt-in
                # wraps it in ExpertsLoRA's unfused reference loop, which applies the base's
                # `_apply_gate` and both biases (graded against tests/gptoss_lora_oracle.py);
                # it stays opt-in until a registered read prices it.
                gptoss_lora = os.environ.get("E4B_GPTOSS_EXPERT_LORA", "0") == "1"
                if gptoss_lora and offload:
                    raise ValueError(
                        "E4B_GPTOSS_EXPERT_LORA=1 wraps gpt-oss experts in ExpertsLoRA's unfused "
                        "reference loop, which is resident only: offload is not measured with the "
                        "wrapper's biases, and enable_expert_offload refuses it. Load without "
                        "offload, or unset the flag for the bare stacks.")
                gate_up = dequantize_mxfp4(get(f"{epfx}gate_up_proj_blocks"), get(f"{epfx}gate_up_proj_scales"), dtype=dtype)
                down = dequantize_mxfp4(get(f"{epfx}down_proj_blocks"), get(f"{epfx}down_proj_scales"), dtype=dtype)
                gu_bias = get(f"{epfx}gate_up_proj_bias").to(dtype)
                dn_bias = get(f"{epfx}down_proj_bias").to(dtype)
                expert_keys.update({
                    f"{epfx}{k}" for k in (
                        "gate_up_proj_blocks", "gate_up_proj_scales", "gate_up_proj_bias",
                        "down_proj_blocks", "down_proj_scales", "down_proj_bias",
                    )
                })
                n_moe += 1
                experts = GptOssExperts4bit.from_gptoss(
                    gate_up, gu_bias, down, dn_bias, quant_type=quant_type, compute_dtype=dtype
                ).to(device)
                if gptoss_lora:
                    experts = ExpertsLoRA(experts, r=r, alpha=alpha, dtype=dtype).to(device)
                if not bare_logged:
                    # Said once, at load: `r`/`alpha` are required positionals and every
                    # other family gets an expert adapter, so a caller training this model
                    # would otherwise learn from the trainable-parameter count (attention
                    # LoRA only) that the experts were never wrapped.
                    bare_logged = True
                    log(f"  NOTE: {model_type!r} experts are "
                        + ("wrapped in ExpertsLoRA (E4B_GPTOSS_EXPERT_LORA=1)"
                           if gptoss_lora else
                           "built BARE (GptOssExperts4bit, no ExpertsLoRA): r/alpha do not "
                           "apply to the expert stacks. E4B_GPTOSS_EXPERT_LORA=1 wraps them")
                        + " on the unfused per-expert reference loop, which applies the "
                        "biases and the clamped GLU; no fused kernel runs, and its cost "
                        "against the fused route is unmeasured until a registered read "
                        "prices it. The other expert-LoRA route for this family is "
                        "grouped-nf4-gemm's mxfp4_qlora.ExpertsMxfp4LoRA "
                        "(docs/solutions/mxfp4-moe-training-and-residency.md).")
                if offload:
                    # Bare-module offload: packed experts stream from (pinned) CPU one layer at a
                    # time; the small biases stay resident. Lets gpt-oss-20b (~11 GB NF4) load and
                    # run on a 12 GB card.
                    offload_handles.append(enable_expert_offload(experts, device, pin=pin))
                parent, leaf = epfx.rstrip(".").rsplit(".", 1)
                setattr(model.get_submodule(parent), leaf, experts)
                del gate_up, down
                continue
            if f"{epfx}gate_up_proj" in weight_map:
                # Already fused on disk (Gemma-4; GraniteMoe after the legacy rename above):
                # [num_experts, 2*inter, hidden] / [num_experts, hidden, inter].
                gate_up = get(f"{epfx}gate_up_proj").to(dtype)
                down = get(f"{epfx}down_proj").to(dtype)
                expert_keys.update({f"{epfx}gate_up_proj", f"{epfx}down_proj"})
            elif model_type in K3_PER_EXPERT_MXFP4 and \
                    f"{epfx}0.{K3_PER_EXPERT_MXFP4[model_type][0][0]}.{K3_PER_EXPERT_MXFP4[model_type][1]}" in weight_map:
                # Per-expert MXFP4 on disk (Kimi K3): each projection is a packed uint8
                # `[rows, K//2]` plus an e8m0 `[rows, K//32]` scale, two fp4 nibbles per
                # byte. Same numeric format gpt-oss uses, different NAMING and shape rank
                # -- so it reuses `dequantize_mxfp4` unchanged.
                #
                # `dequantize_mxfp4` returns the TRANSPOSE of the stored matrix
                # (`[K, rows]`, the layout GptOssExperts wants), but `from_float` below
                # expects gate_up `[2*inter, hidden]` / down `[hidden, inter]` in STORED
                # orientation -- hence the `.T`. Getting this wrong yields a model that
                # loads with plausible shapes and computes garbage.
                (p_gate, p_up, p_down), packed_kind, scale_kind = K3_PER_EXPERT_MXFP4[model_type]

                def _mxfp4_expert(e, proj):
                    blocks = get(f"{epfx}{e}.{proj}.{packed_kind}")
                    scales = get(f"{epfx}{e}.{proj}.{scale_kind}")
                    rows, kh = blocks.shape
                    groups = scales.shape[1]
                    w = dequantize_mxfp4(
                        blocks.reshape(rows, groups, kh // groups), scales, dtype=dtype)
                    return w.T.contiguous()          # [K, rows] -> stored [rows, K]

                gate_up_rows, down_rows = [], []
                for e in range(n_exp):
                    gate_up_rows.append(torch.cat(
                        [_mxfp4_expert(e, p_gate), _mxfp4_expert(e, p_up)], dim=0))
                    down_rows.append(_mxfp4_expert(e, p_down))
                    expert_keys.update({
                        f"{epfx}{e}.{proj}.{kind}"
                        for proj in (p_gate, p_up, p_down)
                        for kind in (packed_kind, scale_kind)
                    })
                gate_up = torch.stack(gate_up_rows).to(dtype)
                down = torch.stack(down_rows).to(dtype)
            elif layer_experts:
                # Per-expert Linears on disk (OLMoE and Qwen3 as `mlp.experts.{e}.gate_proj`;
                # the mixtral family as `block_sparse_moe.experts.{e}.w1`). Both reach here
                # through the SAME code: `layer_experts` already holds the exact checkpoint
                # key for each (expert, role), so neither the container nor the projection
                # spelling is written out here. The role -> on-disk-token mapping stays in
                # the convention, where w1=gate/w3=up/w2=down was adjudicated against
                # upstream's converter and the expert forward — the one thing shapes cannot
                # tell you, because gate and up are shape-identical.
                from .arch.moe_conventions import fuse_experts, stack_experts

                # A hole is carried through as None rather than skipped: a short stack
                # would leave the router addressing experts that were never loaded, so it
                # goes to the fuser, which refuses and names the missing indices.
                rows = {}
                for role in (("gate", "up", "down") if has_gate else ("up", "down")):
                    byidx = layer_experts.get(role, {})
                    expert_keys.update(byidx[e] for e in range(n_exp) if e in byidx)
                    rows[role] = [get(byidx[e], host=stage_on_host) if e in byidx else None for e in range(n_exp)]
                gate_up, down = (fuse_experts(rows["gate"], rows["up"], rows["down"]) if has_gate
                                 else stack_experts(rows["up"], rows["down"]))
                del rows
                gate_up = gate_up.to(device=device, dtype=dtype)
                down = down.to(device=device, dtype=dtype)
            elif f"{epfx}0.gate_proj.weight" in weight_map:
                # Same per-expert shape, reached WITHOUT a convention: the dedicated-quant
                # families (gemma4, kimi_k3, deepseek_v4) predate the convention system and
                # `_convention_or_none` returns None for them, so `layer_experts` is empty
                # even when their checkpoint is spelled this way. Kept verbatim so nothing
                # that loads today starts depending on a convention entry it never had.
                gate_up_rows, down_rows = [], []
                for e in range(n_exp):
                    g, u, d = (
                        get(f"{epfx}{e}.gate_proj.weight"),
                        get(f"{epfx}{e}.up_proj.weight"),
                        get(f"{epfx}{e}.down_proj.weight"),
                    )
                    gate_up_rows.append(torch.cat([g, u], dim=0))  # [2*inter, hidden]
                    down_rows.append(d)  # [hidden, inter]
                    expert_keys.update({f"{epfx}{e}.{p}.weight" for p in ("gate_proj", "up_proj", "down_proj")})
                gate_up = torch.stack(gate_up_rows).to(dtype)
                down = torch.stack(down_rows).to(dtype)
            else:
                continue  # dense layer (no experts here — e.g. Qwen3 mlp_only_layers, or a dense Gemma-4 layer)
            n_moe += 1
            if model_type == "deepseek_v4":
                # V4's epilogue is a CLAMPED SwiGLU, and `ExpertsLoRA` re-implements the expert
                # math inline (to inject the delta before the nonlinearity) rather than calling
                # `base.forward`. It used to hardcode a plain SwiGLU there, so wrapping V4 would
                # have dropped the clamps on every training forward with nothing raised — which
                # is why this was built bare. The adapter now takes the epilogue from the base's
                # `_apply_gate` (see `lora._epilogue`), so wrapping is faithful and V4 is
                # trainable like any other supported architecture.
                base = DeepseekV4Experts4bit.from_deepseek_v4(
                    gate_up, down,
                    limit=float(getattr(lm_config, "swiglu_limit", DEFAULT_SWIGLU_LIMIT)),
                    quant_type=quant_type, compute_dtype=dtype,
                )
                experts = ExpertsLoRA(base, r=r, alpha=alpha, dtype=dtype).to(device)
            else:
                # Instantiate the most-specific class for the scheme: 4-bit loads stay `Experts4bit`
                # instances, so downstream `isinstance(x, Experts4bit)` checks keep working exactly as
                # they did before the ExpertsNbit fold.
                base_cls = Experts4bit if layer_quant_type in ("nf4", "fp4") else ExpertsNbit
                base = base_cls.from_float(
                    gate_up, down, has_gate=has_gate, activation=activation, quant_type=layer_quant_type,
                    compute_dtype=dtype, blocksize=layer_blocksize,
                )
                experts = ExpertsLoRA(base, r=r, alpha=alpha, dtype=dtype).to(device)
            if offload:
                # Move this layer's packed experts to (pinned) CPU now, before the next layer is built,
                # so the GPU never holds more than one layer's experts at a time during load.
                offload_handles.append(enable_expert_offload(experts, device, pin=pin))
            parent, leaf = epfx.rstrip(".").rsplit(
                ".", 1
            )  # ("model.layers.i.mlp","experts") or ("model.layers.i","experts")
            setattr(model.get_submodule(parent), leaf, experts)
            del gate_up, down
    trace.sync("quantise experts (all layers)")
    if n_moe == 0:
        # Name the CHECKPOINT spelling the convention actually looks for, not the
        # module path. Reporting `expert_rel` here is what made the mixtral failure
        # unreadable: it pointed at `mlp.experts`, a prefix that family's checkpoint
        # never uses, so the message described a key nobody should expect to find.
        per_expert = (f"'model.layers.<i>.{conv.expert_re.pattern}'"
                      if conv is not None and conv.roles
                      else f"'model.layers.<i>.{expert_rel}.0.gate_proj.weight'")
        raise RuntimeError(
            f"no fused expert stacks found in {model_id!r} (model_type={model_type!r}): expected "
            f"'model.layers.<i>.{expert_rel}.gate_up_proj' (fused) or {per_expert} (per-expert) "
            "tensors in the checkpoint. Refusing to return a model with zero quantized expert "
            "layers — silently skipping the experts is the exact failure this loader exists to "
            "prevent."
        )
    log(f"  quantized experts on {n_moe}/{n_layers} MoE layers ({n_exp} experts each)")

    if offload_handles:
        pinned = all(h.pinned for h in offload_handles)
        log(
            f"  offloaded {len(offload_handles)} layers' 4-bit experts to {'pinned ' if pinned else ''}CPU RAM "
            "(streamed to GPU one layer at a time during train/eval)"
        )
        if prefetch:
            # Handles were appended in layer order above, which is what the circular linking needs.
            enable_inference_prefetch(offload_handles)
            log("  inference prefetch ON: next layer's experts copy on a side stream during no_grad forwards")
        from .engines.offload import _arena_enabled, _stats_enabled, report_offload_environment

        if _arena_enabled():
            log("  offload arena ON (E4B_OFFLOAD_ARENA): experts staged as consolidated per-dtype copies")
        if _stats_enabled():  # A2: name the PCIe bus + H2D ceiling these per-layer figures ride
            report_offload_environment(device, log)

    if model_type in DEEPSEEK_V4_FP8_DENSE:
        fp8_keys = _install_fp8_block_linears(
            model, weight_map, get, expert_keys, dtype, device)
        expert_keys |= fp8_keys          # placed as modules; not for the `_assign` pass
        log(f"  installed {len(fp8_keys) // 2} block-scaled FP8 linear(s) "
            f"(dense side stays FP8-resident, decoded on use)")

    log("  loading non-expert weights (attention/embeddings/router/norms/dense-mlp)...")
    trace.phase("load non-expert weights")
    renamings = _checkpoint_key_renamings(model_type)
    # The convention's own SUBSTRING renames, for the non-expert half of a family
    # whose MoE block is spelled differently on disk: the mixtral family's router
    # is `block_sparse_moe.gate.weight` on disk and `mlp.gate.weight` in the tree
    # (phimoe then renames that again to `mlp.router.weight`). These are substrings,
    # not suffixes, so `_rename_checkpoint_key` — which anchors at a dot boundary at
    # the END of a key — cannot express them and leaves them untouched. No-op for
    # every convention with an empty rename table, and for granitemoe, whose
    # identical renames LEGACY_KEY_RENAMES has already applied to `weight_map`.
    conv_rename = conv.rename if conv is not None else (lambda k: k)
    unbuilt_pats = _unbuilt_key_patterns(model)
    renamed, unbuilt = 0, []
    for name in weight_map:
        if name not in expert_keys:
            target = _rename_checkpoint_key(conv_rename(name), renamings)
            renamed += target != name
            try:
                _parent_module(model, target)
            except UnplaceableTensorError:
                # Decided BEFORE the shard is read, on the declaration alone: a tensor with
                # no module that the modeling class lists in
                # `_keys_to_ignore_on_load_unexpected` is skipped and counted (ERNIE-4.5's
                # multi-token-prediction block — 12 tensors under `model.mtp_*` in the
                # released 21B index, e4b#529); one it does not list propagates as the
                # named refusal, never as a silent skip and never as a bare getattr error.
                if any(p.search(target) or p.search(name) for p in unbuilt_pats):
                    unbuilt.append(name)
                    continue
                raise
            if _assign(model, target, get(name)):
                narrowed.append(target)
    if unbuilt:
        log(f"  skipped {len(unbuilt)} checkpoint tensor(s) the text model does not build "
            f"({type(model).__name__}._keys_to_ignore_on_load_unexpected), e.g. {unbuilt[0]}")
    if renamed:
        log(f"  applied {renamed} transformers checkpoint-key renaming(s) "
            f"(this checkpoint's layout differs from the module tree)")
    if narrowed:
        # Loud on purpose: this is a checkpoint/modeling-code disagreement that the
        # loader worked around, not a routine step. K3 hits it 69 times (A_log).
        log(f"  narrowed {len(narrowed)} zero-padded tensor(s) to the shape the model "
            f"declares, e.g. {narrowed[0]} — the discarded tail was verified zero "
            f"(see loader._fit)")

    # Non-persistent buffers (rotary inv_freq) aren't in the checkpoint — recompute every rotary module
    # the model has (some architectures, e.g. Gemma, use more than one). Generic; no per-model import.
    # Use `lm_config` (the text tower's config): a multimodal top-level config (Gemma-4's `Gemma4Config`)
    # lacks the rotary fields (`max_position_embeddings`, rope_theta) that live on `text_config`.
    trace.sync("load non-expert weights")
    trace.phase("rebuild rotary embeddings")
    for name, module in list(model.named_modules()):
        if type(module).__name__.endswith("RotaryEmbedding"):
            parent = model.get_submodule(name.rsplit(".", 1)[0]) if "." in name else model
            setattr(parent, name.rsplit(".", 1)[-1], type(module)(lm_config).to(device))
    # Tie lm_head if the checkpoint relied on weight tying — and ONLY then. This used to be
    # unconditional, which is correct for a tied checkpoint (Gemma-4 ships no `lm_head.weight`)
    # and silently wrong for an untied one whose head never reached the model: every forward
    # then computes logits through the embedding matrix. Nothing raises, generations are
    # plausibly shaped, initial train loss sits at ln(vocab), and LoRA "converges" by learning
    # to steer hidden states into embed_tokens — then collapses when the adapter is served on a
    # stack that maps lm_head correctly. Gate on the config and fail loud instead.
    trace.sync("rebuild rotary embeddings")
    trace.phase("tie output head + final checks")
    if model.lm_head.weight.is_meta:
        if getattr(lm_config, "tie_word_embeddings", True):
            model.lm_head.weight = model.model.embed_tokens.weight
        else:
            raise RuntimeError(
                f"{model_id!r}: config declares tie_word_embeddings=False, but no "
                "'lm_head.weight' reached the model — refusing to tie the output head to "
                "embed_tokens, which would load and generate without ever erroring. The head "
                "is in the checkpoint under a spelling this loader did not map; check the "
                "index against the multimodal prefix filter and the per-family key rewriters."
            )

    # This guard exists to catch a silently-incomplete load, so arena mode narrows
    # it rather than disabling it: expert buffers under a meta expert module are
    # INTENTIONALLY unmaterialized (they are served from the arena), but anything
    # else still on meta is the bug this check was written for.
    named = list(model.named_parameters()) + list(model.named_buffers())
    stray = [n for n, x in named
             if x.is_meta and not any(n.startswith(pfx) for pfx in meta_expert_prefixes)]
    if stray:
        raise RuntimeError(f"unmaterialized meta tensors remain: {stray[:8]}")
    if meta_expert_prefixes:
        deferred = sum(1 for n, x in named
                       if x.is_meta and any(n.startswith(p) for p in meta_expert_prefixes))
        # Name the enabler that matches THIS arena. The two are not interchangeable:
        # pointing the NF4 tier at an MXFP4 bake reads the wrong segments, so a caller
        # following the log gets a failure or a silent non-binding rather than a model.
        _nf4_arena = any("nf4." in str(seg)
                         for seg in (arena_index.get("segments") or ()))
        _enabler = ("enable_nvme_residency" if _nf4_arena
                    else "enable_mxfp4_nvme_residency")
        log(f"  experts deferred to the arena: {len(meta_expert_prefixes)} module(s), "
            f"{deferred} unmaterialized buffer(s) — call "
            f"nvme_experts.{_enabler}() before running this model")
    trace.sync("tie output head + final checks")
    _release_cached_pinned_blocks(device)
    return model, config


# Backwards-compatible alias (was OLMoE-only).
load_olmoe_4bit_streaming = load_moe_4bit_streaming
