"""End-to-end QLoRA fine-tune of a fused-MoE model (OLMoE, Qwen3-MoE, Gemma-4) on a single small GPU.

The expert weights are streamed in and frozen in NF4 (:class:`Experts4bit`); only small per-expert /
per-projection LoRA adapters train. Set ``MODEL`` to any supported fused-MoE checkpoint (see the
loader's ``SUPPORTED_MODEL_TYPES``). Configured entirely via env vars, e.g.::

    STEPS=150 R=8 TRAIN_EXPERTS=1 TRAIN_ATTENTION=0 OUT=./out \
      python -m experts4bit_qlora.train

Set ``OFFLOAD_EXPERTS=1`` to keep the frozen 4-bit experts in (pinned, unless ``OFFLOAD_PIN=0``) CPU
RAM and stream one layer's experts to the GPU at a time — lowers peak GPU memory (so models whose
experts exceed VRAM can train) at the cost of a per-layer PCIe transfer. See
:mod:`experts4bit_qlora.engines.offload` and ``docs/METHODOLOGY.md`` §11.

Requires (beyond this package): a CUDA GPU, transformers>=5.0, datasets, accelerate, safetensors.
"""

import os
import time

import sys

import torch

from .loader import load_moe_4bit_streaming
from .lora import (add_attention_lora, detect_attention_projections, quantize_attention_projections_4bit, router_param_ids,
                   trainable_lora_param_ids)
from .util import log

MODEL = os.environ.get("MODEL", "allenai/OLMoE-1B-7B-0924")
DEVICE = "cuda"
DTYPE = torch.bfloat16
SEQ = int(os.environ.get("SEQ", "192"))
STEPS = int(os.environ.get("STEPS", "40"))
GRAD_ACCUM = int(os.environ.get("GRAD_ACCUM", "4"))
# Tokens per forward. A fused-MoE step's cost is largely FIXED per active expert, so one
# row per forward -- what this trainer did -- pays that tax per example.
#
# Packing more rows into each forward amortizes that tax, so the metric this moves is tok/s,
# not s/step (each step carries more data). What it costs is peak memory -- OLMoE-1B-7B on
# an RTX A2000, SEQ=192, alpaca, 15 steps x grad_accum 4 (that card is a correctness-only
# testbed, so its step times are not quoted here):
#
#   TOKEN_BUDGET | peak GPU
#              0 | 5.23 GB     <- one row per forward
#           1024 | 5.88 GB
#           2048 | 6.67 GB     <- default
#           4096 |   OOM       <- on a 12 GB card
#
# The ceiling is VRAM: raise it until you OOM, then back off. 0 restores the one-row path
# the v0.2.0 convergence receipts used.
TOKEN_BUDGET = int(os.environ.get("TOKEN_BUDGET", "2048"))
# Backoff floor. Below this the budget is not the problem and the OOM is real.
_MIN_TOKEN_BUDGET = 256
LR = float(os.environ.get("LR", "2e-4"))
R, ALPHA = int(os.environ.get("R", "8")), int(os.environ.get("ALPHA", "16"))
N_TRAIN = int(os.environ.get("N_TRAIN", "2000"))
EVAL_EVERY = int(os.environ.get("EVAL_EVERY", "50"))
TRAIN_EXPERTS = os.environ.get("TRAIN_EXPERTS", "1") == "1"
TRAIN_ATTENTION = os.environ.get("TRAIN_ATTENTION", "1") == "1"
# Opt-in (default OFF): store the frozen attention projections in bnb NF4
# before the LoRA wrap -- measured -1.34 GB peak at 1.013x step cost on the
# audit recipe; see lora.quantize_attention_projections_4bit for the regime
# argument and receipts.
TRAIN_ATTN_4BIT = os.environ.get("TRAIN_ATTN_4BIT", "0") == "1"
TRAIN_ROUTER = os.environ.get("TRAIN_ROUTER", "0") == "1"
DO_GEN = os.environ.get("DO_GEN", "1") == "1"
OFFLOAD_EXPERTS = os.environ.get("OFFLOAD_EXPERTS", "0") == "1"
OFFLOAD_PIN = os.environ.get("OFFLOAD_PIN", "1") == "1"
# Layer-major accumulation (engines/layer_major.py): every micro-batch of a step through layer L before L+1, the layer held
# resident across them, then one backward of the weighted sum. Under OFFLOAD_EXPERTS=1 a step stages each layer once per
# direction instead of once per micro-batch (GRAD_ACCUM times fewer bytes). Same losses as the stock loop; gradients the same
# sum in another order. Opt-in; requires OFFLOAD_EXPERTS=1 (resident training stages nothing, so it has nothing to gain).
LAYER_MAJOR = os.environ.get("LAYER_MAJOR", "0") == "1"
# The fused expert path (engines/fast.py): enable_fast_train(model, dgrad=True) routes every ExpertsLoRA forward and backward
# through grouped-nf4-gemm's grouped kernels instead of the per-expert reference loop. Opt-in: a default flip needs its own
# read. LAYER_MAJOR=1 implies it, because layer-major's measured speed is on this path (P137,
# e4b.train.p137.layer-major-offload.qwen3.4090.2026-10-18); an explicit FAST_TRAIN=0 keeps the reference loop under
# LAYER_MAJOR=1, with a log line.
_FAST_TRAIN_ENV = os.environ.get("FAST_TRAIN", "").strip()
FAST_TRAIN = _FAST_TRAIN_ENV == "1" or (_FAST_TRAIN_ENV == "" and LAYER_MAJOR)
# Store the frozen expert absmax double-quantized, as bitsandbytes' compress_statistics=True does (one fp32
# per 64 weights -> ~1.02 bytes per 64): ~2.8 GB less on Mixtral-8x7B, ~1.8 GB on Qwen3-30B-A3B. Lossy
# against fp32; see experts4bit_qlora.absmax_dq. ON by default for resident training since TC1 amendments
# 28 / 31 (one RTX 5090 each): 1.4 % of the step for 1.34 GB on Qwen3-30B-A3B, 2.3 % for 2.04 GB on
# Mixtral-8x7B, held-out within 0.003. E4B_ABSMAX_DQ=0 turns it off. E4B_ABSMAX_DQ=1 REQUIRES it: refused
# with OFFLOAD_EXPERTS=1 / TRAIN_ARENA, and a model it cannot compress is a refusal. Unset: on for resident
# training, off under OFFLOAD_EXPERTS=1 / TRAIN_ARENA (those paths read the fp32 absmax by name), and a
# model the compressor refuses (a bare stack, 8-bit storage, ...) keeps its fp32 absmax with a log line.
_ABSMAX_DQ_ENV = os.environ.get("E4B_ABSMAX_DQ", "").strip()
ABSMAX_DQ_REQUIRED = _ABSMAX_DQ_ENV == "1"
ABSMAX_DQ = ABSMAX_DQ_REQUIRED or (_ABSMAX_DQ_ENV == "" and not OFFLOAD_EXPERTS and not os.environ.get("TRAIN_ARENA"))
QUANT_TYPE = os.environ.get("QUANT_TYPE", "nf4")  # nf4/fp4 (4-bit), int8/fp8 (8-bit), bf16/fp16 (passthrough)
OUT = os.environ.get("OUT", "./experts4bit-lora-out")

EVAL_PROMPTS = [
    "List three tips for staying focused while working from home.",
    "Explain what a black hole is in one sentence.",
]


def save_adapter(model, out, tag):
    os.makedirs(out, exist_ok=True)
    sd = {k: v.detach().cpu() for k, v in model.state_dict().items() if "lora" in k}
    torch.save(sd, os.path.join(out, f"adapter_{tag}.pt"))
    return len(sd)


@torch.no_grad()
def generate(model, tokenizer, instruction, max_new=48):
    model.eval()
    model.config.use_cache = True
    prompt = f"### Instruction:\n{instruction}\n\n### Response:\n"
    ids = tokenizer(prompt, return_tensors="pt").to(DEVICE)
    out = model.generate(
        **ids,
        max_new_tokens=max_new,
        do_sample=False,
        repetition_penalty=1.3,
        pad_token_id=tokenizer.eos_token_id,
    )
    return tokenizer.decode(out[0][ids["input_ids"].shape[1] :], skip_special_tokens=True).strip()


def encode_alpaca(tokenizer, split):
    """Alpaca instruction tuning; mask the prompt so loss is only on the response."""
    from datasets import load_dataset

    ds = load_dataset("tatsu-lab/alpaca", split=split)

    def encode(ex):
        head = f"### Instruction:\n{ex['instruction']}\n\n"
        if ex.get("input"):
            head += f"### Input:\n{ex['input']}\n\n"
        prompt = head + "### Response:\n"
        p_ids = tokenizer(prompt, add_special_tokens=True)["input_ids"]
        full = tokenizer(prompt + ex["output"] + tokenizer.eos_token, add_special_tokens=True)["input_ids"][:SEQ]
        labels = list(full)
        for i in range(min(len(p_ids), len(labels))):
            labels[i] = -100
        return {"input_ids": full, "labels": labels}

    ds = ds.map(encode, remove_columns=ds.column_names)
    # Drop examples whose response was fully truncated by SEQ (all labels -100 => no supervised
    # tokens => nan loss); keeps the before/after eval well-defined even at short SEQ.
    return ds.filter(lambda ex: any(t != -100 for t in ex["labels"]))


def _pad_batch(rows, pad_id, device):
    """Right-pad a list of encoded examples into one forward.

    Labels pad with -100 and the attention mask zeroes the padding, so the padded
    positions contribute neither loss nor attention. That is what makes this safe to do
    without touching the model: no example can see another's tokens.
    """
    width = max(len(r["input_ids"]) for r in rows)
    ids, lbl, att = [], [], []
    for r in rows:
        n = len(r["input_ids"])
        ids.append(r["input_ids"] + [pad_id] * (width - n))
        lbl.append(list(r["labels"]) + [-100] * (width - n))
        att.append([1] * n + [0] * (width - n))
    t = lambda x: torch.tensor(x, device=device)  # noqa: E731
    return t(ids), t(lbl), t(att)


def _token_budget_batches(data, budget, pad_id, device, bucket=64):
    """Yield micro-batches sized by TOKEN COUNT, not row count.

    A fused-MoE step pays a cost that is fixed per active expert -- the reference path
    dequantizes each routed expert once, the fused path launches one grouped GEMM per
    expert group -- so a step that carries 150 tokens pays nearly what a step carrying
    4000 does. Batching one row at a time (what this trainer did) pays that tax per
    example. Budgeting by tokens amortizes it.

    The budget is measured as the PADDED cost, ``rows * width``, not the sum of true
    lengths: that is the work the GPU actually does, and it stops one long row from
    silently blowing up a batch that looked affordable. Rows are drawn from a
    length-sorted bucket so a batch's rows are similar lengths and padding waste stays
    small; ``bucket`` rows are buffered and sorted at a time, which keeps the stream
    order shuffled between buckets rather than globally sorted by length.
    """
    buf, rows, width = [], [], 0
    it = iter(data)
    while True:
        if not buf:
            for _ in range(bucket):
                try:
                    buf.append(next(it))
                except StopIteration:
                    break
            if not buf:
                break
            buf.sort(key=lambda r: len(r["input_ids"]))
        r = buf.pop(0)
        w = max(width, len(r["input_ids"]))
        if rows and (len(rows) + 1) * w > budget:
            yield _pad_batch(rows, pad_id, device)
            rows, width = [], 0
            w = len(r["input_ids"])
        rows.append(r)
        width = w
    if rows:
        yield _pad_batch(rows, pad_id, device)


@torch.no_grad()
def eval_loss(model, eval_data):
    """Mean response-only loss over a fixed held-out set (clean before/after signal)."""
    model.eval()
    model.config.use_cache = False
    tot, n = 0.0, 0
    for ex in eval_data:
        ids = torch.tensor([ex["input_ids"]], device=DEVICE)
        lbl = torch.tensor([ex["labels"]], device=DEVICE)
        loss = model(input_ids=ids, labels=lbl).loss.item()
        if loss == loss:  # skip nan (e.g. an all-masked example) defensively
            tot += loss
            n += 1
    return tot / max(n, 1)


def _print_env_help(which: str) -> None:
    """Configuration is env-vars, not flags -- so argv was ignored entirely and
    `python -m experts4bit_qlora.train --help` fell straight through into a real
    run: it loaded the model, initialised CUDA and spawned inductor compile
    workers. Measured on an RTX 5090: ~10 minutes and 6.2 GB of VRAM before the
    user learns there is no such flag.

    Scope of this fix, stated honestly: it exits before the model load, the
    CUDA init and the inductor pool -- the expensive part. It does NOT avoid
    importing torch/bitsandbytes, because the package __init__ eagerly imports
    .lora/.offload/.fast/.cold_engine. Making --help import-free needs a lazy
    __init__, which is a wider change than this defect warrants.
    """
    import os as _os
    print(f"usage: python -m experts4bit_qlora.{which}\n")
    print("Configuration is by ENVIRONMENT VARIABLE (there are no CLI flags).\n")
    rows = [
        ("MODEL", "allenai/OLMoE-1B-7B-0924", "HF model id"),
        ("QUANT_TYPE", "nf4", "nf4/fp4 (4-bit), int8/fp8 (8-bit), bf16/fp16 (passthrough)"),
        ("SEQ", "192", "sequence length"),
        ("STEPS", "40", "optimizer steps"),
        ("GRAD_ACCUM", "4", "gradient accumulation"),
        ("TOKEN_BUDGET", "2048", "tokens per forward (0 = one row per forward)"),
        ("LR", "2e-4", "learning rate"),
        ("R / ALPHA", "8 / 16", "LoRA rank / alpha"),
        ("N_TRAIN", "2000", "training examples"),
        ("EVAL_EVERY", "50", "eval interval in steps"),
        ("TRAIN_EXPERTS", "1", "train expert LoRA"),
        ("TRAIN_ATTENTION", "1", "train attention LoRA"),
        ("TRAIN_ROUTER", "0", "train the router"),
        ("TRAIN_ARENA", "", "PATH to a baked nf4 arena -> grouped expert fwd/dgrad"),
        ("TRAIN_VRAM_FRAC", "1", "fraction of experts held in VRAM (rest -> DRAM)"),
        ("OFFLOAD_EXPERTS", "0", "keep experts in pinned CPU RAM"),
        ("OFFLOAD_PIN", "1", "pin the offloaded expert memory"),
        ("FAST_TRAIN", "0", "the fused expert path: enable_fast_train(dgrad=True) (1 under LAYER_MAJOR=1 unless set to 0)"),
        ("LAYER_MAJOR", "0", "layer-major accumulation: stage each offloaded layer once per step (needs OFFLOAD_EXPERTS=1; implies FAST_TRAIN=1)"),
        ("E4B_TRAIN_DETERMINISTIC", "0", "the deterministic mode: det gather + strict mode around each backward + no fill; needs CUBLAS_WORKSPACE_CONFIG=:4096:8 (refused otherwise)"),
        ("E4B_ABSMAX_DQ", "auto", "double-quantize the frozen expert absmax: on for resident training (0 off, 1 required)"),
        ("E4B_CHUNKED_LM_LOSS", "auto", "auto: the loss over token chunks only where a forward's fp32 logits would reach 1 GiB; 1 or a chunk size: every training forward; 0: the stock loss"),
        ("DO_GEN", "1", "sample generations during training"),
        ("SEED", "0", "torch manual seed"),
        ("OUT", "./experts4bit-lora-out", "adapter output dir"),
    ]
    for k, d, h in rows:
        cur = _os.environ.get(k.split(" /")[0])
        mark = f"  [set: {cur}]" if cur is not None else ""
        print(f"  {k:<17} default={d:<26} {h}{mark}")
    print("\nexample:\n  MODEL=Qwen/Qwen3-30B-A3B OFFLOAD_EXPERTS=1 STEPS=100 \\\n"
          f"    python -m experts4bit_qlora.{which}")


def _release_expert_storage(model, cls) -> int:
    """Swap every ``cls`` module's packed weights and absmax buffers
    for SHAPE-PRESERVED meta twins, returning bytes freed. REPLACES
    the Parameter/buffer objects -- ``Parameter.data =`` refuses a
    cuda->meta swap outright ("incompatible tensor type", hit live on
    hyb_a attempt 2. The tier init only ever .view()s these and
    .float()s the absmax views, both legal on meta."""
    freed = 0
    for m in model.modules():
        if not isinstance(m, cls):
            continue
        for attr in ("gate_up_proj", "down_proj",
                     "gate_up_absmax", "down_absmax"):
            t = getattr(m, attr, None)
            if t is None or t.device.type == "meta":
                continue
            freed += t.numel() * t.element_size()
            twin = torch.empty_like(t.data, device="meta")
            if isinstance(t, torch.nn.Parameter):
                setattr(m, attr, torch.nn.Parameter(
                    twin, requires_grad=False))
            else:
                setattr(m, attr, twin)   # registered buffer: routed
                #                          into _buffers by __setattr__
    return freed


def placement_manifest(n_layers: int, n_experts: int, frac: float = 1.0) -> dict:
    """The TRAIN_ARENA expert placement. ``frac`` is the share of each layer's
    experts held in VRAM; the remainder goes to DRAM.

    ``frac=1.0`` is the certified TR2 placement (all-VRAM) and is the default.
    Split is by expert INDEX, not routing frequency -- deterministic and
    disclosed. A routing-informed split (cf. E4B_HOT_PER_LAYER in serve.py)
    should do strictly better.

    Pure and importable so the wiring can be tested by BEHAVIOUR: the previous
    guard grepped train.py for the literal ``"vram_frac": 1.0``, which passes
    for any source that merely contains the text and breaks on any refactor
    that preserves the semantics.
    """
    if not 0.0 <= frac <= 1.0:
        raise SystemExit(f"TRAIN_VRAM_FRAC={frac} out of range [0,1]")
    nv = max(0, min(n_experts, int(round(n_experts * frac))))
    return {
        "schema": "e4b-placement/1",
        "tiers": {
            "vram": [[la, e] for la in range(n_layers) for e in range(nv)],
            "dram": [[la, e] for la in range(n_layers)
                     for e in range(nv, n_experts)],
            "nvme": [],
        },
        "masses": {"vram_frac": nv / n_experts,
                   "dram_frac": (n_experts - nv) / n_experts,
                   "nvme_frac": 0.0},
    }


def apply_absmax_dq(model, required: bool) -> int:
    """Double-quantize the model's expert absmax (experts4bit_qlora.compress_expert_absmax_); returns the stacks compressed.

    ``required`` (E4B_ABSMAX_DQ=1): a refusal (ValueError) propagates and compressing nothing is a SystemExit -- a vacuous arm.
    Otherwise (the default): a model the compressor refuses, or one with nothing to compress, keeps its fp32 absmax and says so.
    """
    from .absmax_dq import compress_expert_absmax_, expert_absmax_bytes

    dq_before = expert_absmax_bytes(model)
    try:
        n_dq = compress_expert_absmax_(model)
    except ValueError as e:
        if required:
            raise
        log(f"[absmax-dq] default: kept the fp32 expert absmax -- {e}")
        return 0
    if n_dq == 0:
        if required:
            raise SystemExit("E4B_ABSMAX_DQ=1 compressed no expert absmax -- refusing a vacuous arm")
        log("[absmax-dq] default: no expert stack to compress; the fp32 absmax is unchanged")
        return 0
    dq_after = expert_absmax_bytes(model)
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    log(f"[absmax-dq] {n_dq} expert stacks: absmax {dq_before / 1e9:.3f} GB -> {dq_after / 1e9:.3f} GB "
        f"({dq_before / max(dq_after, 1):.3f}x, bitsandbytes nested statistics)")
    return n_dq


def main():
    if any(a in ("-h", "--help") for a in sys.argv[1:]):
        _print_env_help("train")
        return 0
    # E4B_TRAIN_DETERMINISTIC=1 (engines/train_determinism.py): refused here, before any CUDA work, when
    # CUBLAS_WORKSPACE_CONFIG is not set, because cuBLAS reads it when it creates its handle.
    from .engines.train_determinism import deterministic_backward, deterministic_requested, enable_training_determinism
    if deterministic_requested():
        try:
            enable_training_determinism()
        except RuntimeError as e:
            raise SystemExit(str(e))
        print("[determinism] E4B_TRAIN_DETERMINISTIC=1: det gather, strict mode around each backward, "
              f"CUBLAS_WORKSPACE_CONFIG={os.environ['CUBLAS_WORKSPACE_CONFIG']}, no fill of uninitialised memory", flush=True)
    torch.manual_seed(int(os.environ.get("SEED", "0")))  # default unchanged; the mode-matrix scripts set it
    if ABSMAX_DQ_REQUIRED and (OFFLOAD_EXPERTS or os.environ.get("TRAIN_ARENA")):
        # Refused before the load: expert offload stages the absmax by name from a host home, and
        # TRAIN_ARENA replaces the expert storage with an arena; neither reads the compressed form.
        raise SystemExit("E4B_ABSMAX_DQ=1 is a RESIDENT-training switch: it cannot be combined with "
                         + ("OFFLOAD_EXPERTS=1" if OFFLOAD_EXPERTS else "TRAIN_ARENA")
                         + " (that path reads the fp32 expert absmax by name). Unset one of them.")
    if _FAST_TRAIN_ENV not in ("", "0", "1"):
        raise SystemExit(f"FAST_TRAIN={_FAST_TRAIN_ENV!r}: use 1 (the fused expert path) or 0 (the reference loop).")
    if FAST_TRAIN and os.environ.get("TRAIN_ARENA"):
        # Refused before the load: enable_hybrid_train patches the same ExpertsLoRA wrappers, and the composition is untested.
        raise SystemExit("FAST_TRAIN=1" + (" (implied by LAYER_MAJOR=1)" if _FAST_TRAIN_ENV == "" else "")
                         + " cannot be combined with TRAIN_ARENA (both route the ExpertsLoRA wrappers). Unset one of them.")
    if LAYER_MAJOR and not OFFLOAD_EXPERTS:
        raise SystemExit("LAYER_MAJOR=1 needs OFFLOAD_EXPERTS=1: it saves expert stagings, and resident training stages none.")
    log(f"loading {MODEL} via streaming 4-bit loader (CPU-RAM-light)...")
    from transformers import AutoTokenizer, get_cosine_schedule_with_warmup

    tok = AutoTokenizer.from_pretrained(MODEL)
    # Pad id for the batcher. Padded positions get label -100 and attention 0, so the
    # choice is inert -- eos is the conventional fallback when a model ships no pad token.
    _PAD_ID = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
    model, _ = load_moe_4bit_streaming(
        MODEL, DEVICE, DTYPE, R, ALPHA, offload=OFFLOAD_EXPERTS, pin=OFFLOAD_PIN, quant_type=QUANT_TYPE
    )
    # The loader already placed every module; under offload the experts live in pinned CPU RAM by
    # design, so a blanket model.to(DEVICE) would drag them back onto the GPU and defeat offloading.
    if not OFFLOAD_EXPERTS:
        model.to(DEVICE)
    if TRAIN_ATTN_4BIT:
        expected_attn4 = detect_attention_projections(model, exact_linear=True).expected_count
        n_q4 = quantize_attention_projections_4bit(model)
        if n_q4 == 0:
            raise SystemExit("TRAIN_ATTN_4BIT=1 converted no projections "
                             "-- refusing a vacuous arm")
        log(f"[attn-4bit] {n_q4} projections stored in NF4 (frozen base); "
            f"expected {expected_attn4}")
    if ABSMAX_DQ:
        apply_absmax_dq(model, required=ABSMAX_DQ_REQUIRED)
    n_attn = add_attention_lora(model, R, ALPHA, DTYPE) if TRAIN_ATTENTION else 0
    log(f"attn LoRA {n_attn} projs | train experts={TRAIN_EXPERTS} attn={TRAIN_ATTENTION} router={TRAIN_ROUTER}")

    from . import expert_profile

    expert_profile.attach(model)  # no-op unless E4B_EXPERT_PROFILE is set (profile-only)

    # Trainables by STRUCTURE, not by parameter name: expert adapters are the ExpertsLoRA modules' tensors, attention adapters
    # the LoRALinear modules' (add_attention_lora creates nothing else), the router the [E, hidden] weight beside each expert
    # stack. Matching names ("experts" / "self_attn" / "mlp.gate.weight") froze Nemotron-H's attention adapters (they live
    # under `mixer.`) and never found a router outside `mlp.gate` (Granite's `block_sparse_moe.router`, Gemma-4's
    # `router.proj`, Nemotron-H's `mixer.gate`, LFM2's `feed_forward.gate`).
    expert_ids_, attn_ids_ = trainable_lora_param_ids(model)
    router_ids_ = router_param_ids(model) if TRAIN_ROUTER else set()
    lora_params, router_params = [], []
    for n, p in model.named_parameters():
        if (TRAIN_EXPERTS and id(p) in expert_ids_) or (TRAIN_ATTENTION and id(p) in attn_ids_):
            p.requires_grad_(True)
            lora_params.append(p)
        elif id(p) in router_ids_:
            p.requires_grad_(True)
            router_params.append(p)
        else:
            p.requires_grad_(False)
    trainable = lora_params + router_params
    if TRAIN_ROUTER:
        from .lora import ROUTER_AMBIGUOUS
        if ROUTER_AMBIGUOUS:
            raise SystemExit("TRAIN_ROUTER=1 but these MoE blocks have more than one [num_experts, hidden] weight beside their "
                             f"experts, so the router cannot be identified: {', '.join(ROUTER_AMBIGUOUS[:4])}"
                             + (" ..." if len(ROUTER_AMBIGUOUS) > 4 else "") + " -- refusing to guess")
    if TRAIN_ROUTER and not router_params:
        raise SystemExit("TRAIN_ROUTER=1 but no [num_experts, hidden] router weight was found beside any expert stack -- "
                         "refusing to report a router-trained run that trained none")
    if TRAIN_EXPERTS and not any(id(p) in expert_ids_ for p in lora_params):
        # A family the loader builds BARE (gpt-oss, unless E4B_GPTOSS_EXPERT_LORA=1) has no
        # expert adapter to train. Attention LoRA alone would keep the
        # trainable count nonzero and the run would report a loss curve under a flag that
        # says the experts were trained. TRAIN_EXPERTS=1 is the default, so say so.
        raise SystemExit(
            "TRAIN_EXPERTS=1 but the loaded model carries no expert adapter: its expert "
            "stacks are built bare (see the loader's NOTE). Refusing to train attention/router "
            "only under a flag that says otherwise. Set TRAIN_EXPERTS=0 to train what is "
            "wrapped; for gpt-oss, set E4B_GPTOSS_EXPERT_LORA=1 (ExpertsLoRA's unfused "
            "reference loop, cost unmeasured) or train the experts with grouped-nf4-gemm's "
            "mxfp4_qlora.ExpertsMxfp4LoRA (docs/solutions/mxfp4-moe-training-and-residency.md).")
    if FAST_TRAIN:
        # Before the BEFORE evaluation, so both evaluations and every step run one expert path. absmax_dq=False: apply_absmax_dq
        # above already settled the absmax (an explicit True would turn its soft resident default into a requirement and raise
        # on a model the compressor refuses); the patched forward reads a compressed absmax through expert_absmax_fp32.
        from .engines.chunked_lm_loss import _target as _chunk_target
        from .engines.fast import enable_fast_train
        # Checkpointing FIRST, as P137's box and recipe.prepare_qlora_training do: enable_fast_train routes only the decoder
        # layers whose checkpointing is already on through e4b's reentrant checkpoint (TC1 amendment 64; E4B_CKPT_OFFLOAD), and
        # a later gradient_checkpointing_enable would put Hugging Face's back. Training mode alone checkpoints, so the BEFORE
        # evaluation and the generations below are unaffected; the call before the loop is skipped under FAST_TRAIN.
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        n_fast = enable_fast_train(model, dgrad=True, absmax_dq=False)
        if n_fast <= 0:
            raise SystemExit("FAST_TRAIN=1 patched no ExpertsLoRA wrapper -- refusing to report a fused-path run that trains "
                             "through the reference loop")
        # enable_fast_train installs the chunked LM loss itself (E4B_CHUNKED_LM_LOSS); the hook below then only updates it.
        chunked = _chunk_target(model).__dict__.get("_e4b_chunked_lm_loss") is not None
        log(f"[fast-train] {n_fast} ExpertsLoRA wrapper(s) on the fused path (dgrad=True); chunked LM loss "
            f"{'installed by enable_fast_train' if chunked else 'not installed'}")
    elif LAYER_MAJOR:
        log("LAYER_MAJOR=1 with FAST_TRAIN=0: layer-major over the ExpertsLoRA reference loop, not the fused configuration "
            "P137 measured")
    # E4B_CHUNKED_LM_LOSS, `auto` by default (TC1 amendment 44): a training forward whose fp32 logits would reach 1 GiB takes the loss
    # over token chunks (engines/chunked_lm_loss.py), smaller ones run stock; `1` chunks every training forward, `0` keeps the stock
    # loss. Evaluation (no_grad) and generation keep the stock forward; a model the module does not reproduce keeps the stock loss
    # (a warning only when the variable was set).
    from .engines.chunked_lm_loss import (chunked_lm_loss_by_default, chunked_lm_loss_min_bytes, chunked_lm_loss_requested,
                                          enable_chunked_lm_loss)
    chunk = chunked_lm_loss_requested()
    if chunk is not None:
        enable_chunked_lm_loss(model, chunk, verbose=True, min_logits_bytes=chunked_lm_loss_min_bytes(),
                               quiet_refusal=chunked_lm_loss_by_default())
    torch.cuda.synchronize()
    log(
        f"loaded. trainable: {sum(p.numel() for p in trainable):,} "
        f"(lora {sum(p.numel() for p in lora_params):,} + router {sum(p.numel() for p in router_params):,}) "
        f"| offload={'on' if OFFLOAD_EXPERTS else 'off'} | GPU mem: {torch.cuda.memory_allocated() / 1e9:.2f} GB"
    )
    # Reset so the peak we report at the end reflects the training step (a full fwd+bwd), which is
    # the figure that decides whether a model fits — the point of OFFLOAD_EXPERTS.
    torch.cuda.reset_peak_memory_stats()

    before = {}
    if DO_GEN:
        log("BEFORE-training generations:")
        for q in EVAL_PROMPTS:
            before[q] = generate(model, tok, q)
            log(f"  Q: {q}\n     A: {before[q]}")

    log("preparing dataset (alpaca, response-only loss)...")
    data = encode_alpaca(tok, f"train[:{N_TRAIN}]")
    eval_data = encode_alpaca(tok, f"train[{N_TRAIN}:{N_TRAIN + 64}]")

    _train_arena = os.environ.get("TRAIN_ARENA")
    if _train_arena:
        # PREREG-tr2-grouped-train: route expert fwd/dgrad through the
        # gnf4 grouped kernels (one launch over a layer's routed rows)
        # instead of the per-expert bnb chain. All-VRAM placement; the
        # wiring must engage fully or refuse -- never silently train
        # the bnb path the caller opted out of.
        # Validate BEFORE _release_expert_storage: a bad path used to free
        # ~16 GB of expert weights and only then die on FileNotFoundError,
        # leaving no path back to the bnb arm it just destroyed.
        if not os.path.exists(_train_arena + ".index.json"):
            raise SystemExit(
                f"TRAIN_ARENA={_train_arena!r}: no {_train_arena}.index.json. "
                "TRAIN_ARENA is a PATH to a baked arena, not a boolean.")
        from .engines.hot_residency import target_modules
        from .engines.hybrid_train import enable_hybrid_train
        _mods = target_modules(model)
        _L, _E = len(_mods), _mods[0].num_experts
        # TRAIN_VRAM_FRAC exposes the placement the engine already supports.
        # enable_hybrid_train takes an arbitrary manifest and the dram/nvme
        # tiers are exercised by serve.py, but this block hardcoded
        # vram_frac=1.0, so training had no memory/speed dial at all. The
        # arena REPLACES the bnb expert storage (see _release_expert_storage
        # below), so it is the majority of the training peak and tiering it
        # is the largest lever available.
        # Default 1.0 == the certified TR2 placement, byte-for-byte.
        # NOTE: the split is by expert INDEX, not by routing frequency -- a
        # deterministic, disclosed split for measuring the tradeoff curve.
        # A routing-informed split (cf. E4B_HOT_PER_LAYER in serve.py) would
        # place the hottest experts in VRAM and should do strictly better.
        _frac = float(os.environ.get("TRAIN_VRAM_FRAC", "1"))
        _man = placement_manifest(_L, _E, _frac)
        _nv = len(_man["tiers"]["vram"]) // _L if _L else 0
        if _nv != _E:
            log(f"[tr2] TRAIN_VRAM_FRAC={_frac}: {_nv}/{_E} experts per layer "
                f"in VRAM, {_E - _nv} in DRAM")
        # Release the loader's bnb expert storage BEFORE the tier
        # build: the build materializes ~16 GB of arena stacks while
        # the ~16 GB of bnb Parameters are still resident, and the
        # PEAK is what OOMed the 32 GB box (hit live on hyb_a, exactly
        # as the review predicted -- the post-enable release fixed the
        # steady state but not the peak). Data swaps to SHAPE-PRESERVED
        # meta tensors: _HotResidency.__init__ takes .view()s of these
        # buffers (shape math only) and the hybrid _build hooks source
        # actual bytes from the ARENA (self.hot_ids, captured before
        # the views, feeds tolist()). If enable then fails, the
        # process exits -- there is no path that trains on the freed
        # weights. Adapter-only checkpoints make the shrink safe.
        from ._vendor.experts import ExpertsNbit
        _freed = _release_expert_storage(model, ExpertsNbit)
        torch.cuda.empty_cache()
        log(f"[tr2] released {_freed / 1e9:.2f} GB of bnb expert "
            f"storage ahead of the tier build")
        _n = enable_hybrid_train(model, _train_arena, _man,
                                 hot_rows=max(_E, 128))
        if _n != _L:
            raise SystemExit(f"TRAIN_ARENA engaged {_n}/{_L} modules "
                             "-- refusing a partial treatment")
        # Report the placement actually used. This string was hardcoded
        # "all-VRAM" and stayed that way at any TRAIN_VRAM_FRAC < 1, directly
        # contradicting the `masses ...` line the tier logs immediately above
        # -- a receipt would have recorded the wrong placement.
        _place = ("all-VRAM" if _nv == _E
                  else f"{_nv}/{_E} VRAM + {_E - _nv}/{_E} DRAM per layer")
        log(f"[tr2] hybrid-train engaged on {_n} modules "
            f"(grouped fwd/dgrad, {_place})")
    eval_before = eval_loss(model, eval_data)
    log(f"held-out eval loss BEFORE: {eval_before:.4f}")

    groups = []
    if lora_params:
        groups.append({"params": lora_params, "lr": LR})
    if router_params:
        groups.append({"params": router_params, "lr": LR * 0.1})  # router is sensitive -> 0.1x LR
    opt = torch.optim.AdamW(groups, lr=LR)
    sched = get_cosine_schedule_with_warmup(opt, num_warmup_steps=max(5, STEPS // 10), num_training_steps=STEPS)
    # Gradient checkpointing: recompute each decoder layer in backward instead of saving the
    # dequantized expert weights as activations — the key to fitting MoE QLoRA on a small card.
    model.config.use_cache = False
    if not FAST_TRAIN:   # under FAST_TRAIN it was enabled before enable_fast_train, which routed it; enabling again would undo that
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    model.enable_input_require_grads()
    model.train()
    log(
        f"training: {STEPS} steps x grad_accum {GRAD_ACCUM} (seq<= {SEQ}), lr={LR}, cosine+warmup, eval every {EVAL_EVERY}"
    )
    def _batch_stream(budget):
        if budget <= 0:            # 0 restores the historical one-row-per-forward path,
            for ex in data:        # which is what the v0.2.0 convergence receipts used
                yield (torch.tensor([ex["input_ids"]], device=DEVICE),
                       torch.tensor([ex["labels"]], device=DEVICE),
                       torch.ones(1, len(ex["input_ids"]), dtype=torch.long, device=DEVICE))
        else:
            yield from _token_budget_batches(data, budget, _PAD_ID, DEVICE)

    budget = TOKEN_BUDGET
    it, t0, ema, best = _batch_stream(budget), time.time(), None, float("inf")
    tok_seen = 0
    from . import census as _census
    _clock = _census.PhaseClock() if _census.enabled() else None
    _tprof, _tprof_steps = None, [0]
    _prof_out = os.environ.get("TR1_PROFILE_OUT")
    if _clock and _prof_out:
        # kernel-budget instrument (PREREG-tr1-census #2): same
        # schedule shape + table format as the serving census, so
        # bench/hybrid-g9/f1/step_budget.py parses it unchanged.
        from torch.profiler import ProfilerActivity, profile, schedule
        # active=4 and NO record_shapes: a 30B training step is
        # millions of events, and the 8-step shape-recorded window
        # drove the census container into its 170 GiB cgroup cap
        # (SIGKILL at step ~10, peak == limit). The kernel-budget
        # table needs names and times, not shapes. Run the profiler
        # in its OWN short run, never inside the A/A census pair --
        # its overhead perturbs the phases it is measuring.
        # CUDA-only and active=2: even names-only CPU+CUDA at
        # active=4 was OOM-killed at the 170 GiB cgroup cap during
        # key_averages() AFTER training finished (p2). The kernel
        # budget needs device times; host op events are the bulk of
        # the volume.
        _tprof = profile(
            activities=[ProfilerActivity.CUDA],
            schedule=schedule(skip_first=3, wait=0, warmup=1, active=2,
                              repeat=1),
            record_shapes=False)
        _tprof.__enter__()
    from .engines.offload import offload_stats_report, reset_offload_stats

    reset_offload_stats()  # measure the training loop only (drop load/BEFORE-eval transfers)
    step = 0
    while step < STEPS:
        if _clock:
            _clock.step_start()
            _clock.start("optim")
        opt.zero_grad()
        if _clock:
            _clock.stop()
        loss_acc = 0.0
        try:
            if LAYER_MAJOR:
                from .engines.layer_major import layer_major_step

                if _clock:
                    _clock.start("data")
                mbs = []
                for _ in range(GRAD_ACCUM):
                    try:
                        ids, lbl, att = next(it)
                    except StopIteration:
                        it = _batch_stream(budget)
                        ids, lbl, att = next(it)
                    mbs.append({"input_ids": ids, "labels": lbl, "attention_mask": att})
                if _clock:
                    _clock.stop()
                    _clock.start("layer_major")  # forward + the one backward: its own phase, never read against "forward"
                losses = layer_major_step(model, mbs, [1.0 / GRAD_ACCUM] * GRAD_ACCUM)
                if _clock:
                    _clock.stop()
                    _clock.start("loss_sync")
                loss_acc = sum(float(x) for x in losses) / GRAD_ACCUM
                tok_seen += sum(int(b["attention_mask"].sum()) for b in mbs)
                if _clock:
                    _clock.stop()
            for _ in range(0 if LAYER_MAJOR else GRAD_ACCUM):
                if _clock:
                    _clock.start("data")
                try:
                    ids, lbl, att = next(it)
                except StopIteration:
                    it = _batch_stream(budget)
                    ids, lbl, att = next(it)
                if _clock:
                    _clock.stop()
                    _clock.start("forward")
                out = model(input_ids=ids, labels=lbl, attention_mask=att)
                if _clock:
                    _clock.stop()
                    _clock.start("backward")
                with deterministic_backward():
                    (out.loss / GRAD_ACCUM).backward()
                if _clock:
                    _clock.stop()
                    _clock.start("loss_sync")
                loss_acc += out.loss.item() / GRAD_ACCUM
                tok_seen += int(att.sum())
                if _clock:
                    _clock.stop()
        except torch.cuda.OutOfMemoryError:
            if _clock and _clock._open is not None:
                _clock.stop()
            # The token budget's ceiling is VRAM, and the right value is host- AND
            # model-specific -- 2048 fits OLMoE on a 12 GB card, a 30B offloaded model is
            # a different profile entirely. Dying on a default is a bad way to learn that,
            # so back off and keep training. The whole step is discarded (a partial
            # backward has already accumulated some grads) and retried at half the budget.
            if budget <= _MIN_TOKEN_BUDGET:
                raise
            opt.zero_grad(set_to_none=True)
            torch.cuda.empty_cache()
            budget = max(budget // 2, _MIN_TOKEN_BUDGET)
            it = _batch_stream(budget)
            log(f"  [oom] step {step + 1}: halving TOKEN_BUDGET -> {budget} and retrying "
                f"(set TOKEN_BUDGET explicitly to skip this search)")
            continue
        step += 1
        if _clock:
            _clock.start("optim")
        torch.nn.utils.clip_grad_norm_(trainable, 1.0)
        opt.step()
        sched.step()
        if _clock:
            _clock.stop()
            # loss lands in the receipt so the prereg's NaN/divergence
            # refusal is checkable from the artifact, not the log
            _clock.step_end(extra={"loss": float(loss_acc)})
        if _tprof is not None:
            _tprof.step()
            _tprof_steps[0] += 1
        ema = loss_acc if ema is None else 0.9 * ema + 0.1 * loss_acc
        if step % 10 == 0 or step == 1:
            log(
                f"  step {step}/{STEPS}  loss {loss_acc:.3f}  ema {ema:.3f}  "
                f"({(time.time() - t0) / step:.1f}s/step, "
                f"{tok_seen / max(time.time() - t0, 1e-9):.0f} tok/s)"
            )
        if step % EVAL_EVERY == 0:
            el = eval_loss(model, eval_data)
            marker = ""
            if el < best:
                best = el
                save_adapter(model, OUT, "best")
                marker = "  *new best -> saved"
            log(f"  [eval] step {step}: held-out loss {el:.4f} (best {best:.4f}){marker}")
            model.train()
    log(
        f"training done in {time.time() - t0:.0f}s "
        f"| peak GPU mem: {torch.cuda.max_memory_allocated() / 1e9:.2f} GB (offload={'on' if OFFLOAD_EXPERTS else 'off'})"
    )
    offload_stats_report(log)  # no-op unless E4B_OFFLOAD_STATS=1
    if _tprof is not None:
        _tprof.__exit__(None, None, None)
        _tbl = _tprof.key_averages().table(sort_by="cuda_time_total",
                                           row_limit=80)
        _active = max(0, min(2, _tprof_steps[0] - 3 - 1))
        _hdr = (f"profiled training steps: {_tprof_steps[0]} "
                f"(active window: {_active}/2)\n")
        if _active < 2:
            _hdr += ("WARNING: active window INCOMPLETE -- this table "
                     "under-samples and must not be cited as the "
                     "attribution\n")
        with open(_prof_out, "w") as _f:
            _f.write(_hdr + _tbl)
        log(f"[tr1-census] wrote {_prof_out} (active={_active}/2)")
    if _clock:
        out_path = os.environ.get("TR1_CENSUS_OUT", "tr1_census.json")
        _clock.write(out_path, {
            "model": MODEL, "seq": SEQ, "steps": STEPS,
            "grad_accum": GRAD_ACCUM, "token_budget": TOKEN_BUDGET,
            # the OOM backoff halves the LIVE budget; the env value
            # alone cannot explain an A/A phase drift between runs
            # that settled at different effective budgets
            "token_budget_effective": budget,
            "offload": bool(OFFLOAD_EXPERTS),
            "torch": torch.__version__,
        })
        log(f"[tr1-census] wrote {out_path} ({len(_clock.steps)} steps)")

    model.gradient_checkpointing_disable()
    eval_after = eval_loss(model, eval_data)
    log(
        f"held-out eval loss: BEFORE {eval_before:.4f} -> AFTER {eval_after:.4f} "
        f"(delta {eval_after - eval_before:+.4f}) | best {best:.4f}"
    )
    model.train()

    if DO_GEN:
        model.gradient_checkpointing_disable()
        log("AFTER-training generations:")
        for q in EVAL_PROMPTS:
            after = generate(model, tok, q)
            log(f"  Q: {q}\n     BEFORE: {before.get(q, '')}\n     AFTER : {after}")

    n = save_adapter(model, OUT, "last")
    log(f"saved final adapter ({n} tensors) -> {OUT}/adapter_last.pt ; best kept at adapter_best.pt")


if __name__ == "__main__":
    main()
