"""Blind trial, round 5, of envsnap.record / envsnap.verify: new families, exported targets and
ill-conditioned float32 math judged by verify's float64 golden (#23).

Rounds 1-4: scripts/hf_verify_trial.py, verify_trial2.py, verify_trial3.py, verify_trial4.py.
This round: HF T5 (relative position buckets, encoder-decoder greedy generate with a cross-attention
cache, right padding), Whisper (conv front-end + encoder-decoder), ConvNeXt (LayerScale, drop path
in eval, channels_last), BERT masked-LM (padding mask, token types), Llama with RoPE scaling
variants (linear, dynamic, yarn, llama3), Qwen2-MoE (top-k router + shared expert with its own
sigmoid gate), Mamba (the CPU slow path: selective scan in Python); built in code: torch.jit.trace,
torch.export (ep.module() and unflatten) targets, and three ILL-CONDITIONED but benign float32
computations (variance by subtraction, log_softmax of logits with a big common offset, a long sum
with a big offset cancelled afterwards) where float32 rounding alone exceeds the elementwise
tolerance: a target that sums in another order must pass (verify's float64 golden), and real
changes of the same models must still fail on the right module.
Random-init tiny configs (no downloads), CPU, one torch thread, environment="none".

Each case's expectation is written in the case table *before* the trial ran:

  expect "pass":     verdict pass / pass-with-limitations (anything else numeric: FALSE ALARM;
                     `slow` alone is counted apart, as a timing alarm)
  expect "fail":     verdict fail, and the first divergence's module path must contain one of
                     `where` ("|"-separated; otherwise WRONG LAYER; None: any module); a pass is a MISS
  any exception: CRASH (the traceback's last envsnap frame is printed)

A real change must be a change: each "fail" case first runs reference and target without envsnap;
an injected change with no effect there is NO-EFFECT, one that makes the model raise is
TARGET-RAISES (harness problems, not scored). `python verify_trial5.py --dry` runs only that check
(and the benign targets without envsnap), for every case.

Run: cd scripts && python verify_trial5.py [filter]   (needs transformers; not part of the test suite)
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn
from trial_runner import run_cases  # scripts/ beside this file

import envsnap

warnings.filterwarnings("ignore")
torch.set_num_threads(1)

import transformers  # type: ignore[import-not-found,unused-ignore]  # noqa: E402
from transformers.utils import logging as hf_logging  # type: ignore[import-not-found,unused-ignore]  # noqa: E402

hf_logging.set_verbosity_error()  # type: ignore[no-untyped-call,unused-ignore]


def hf(name: str, *args: Any, **kwargs: Any) -> Any:
    """A transformers class by name, built untyped: configs take model-specific keywords."""
    return getattr(transformers, name)(*args, **kwargs)


VOCAB = 96
TOKENS = {"pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2}
Run = Callable[[str, nn.Module, Any], Any]  # (model name, model, recorder/verifier) -> outputs


def gen(seed: int = 1) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def untyped(model: Any) -> Any:
    return model


# -- HF models (random init, tiny) -----------------------------------------------------------------


def t5(attn: str) -> Any:
    cfg = hf(
        "T5Config",
        vocab_size=VOCAB,
        d_model=32,
        d_kv=8,
        d_ff=64,
        num_layers=2,
        num_decoder_layers=2,
        num_heads=4,
        relative_attention_num_buckets=8,
        relative_attention_max_distance=16,
        dropout_rate=0.0,
        decoder_start_token_id=0,
        pad_token_id=0,
        eos_token_id=2,
        attn_implementation=attn,
    )
    return hf("T5ForConditionalGeneration", cfg)


def whisper(attn: str) -> Any:
    cfg = hf(
        "WhisperConfig",
        vocab_size=VOCAB,
        num_mel_bins=16,
        encoder_layers=2,
        decoder_layers=2,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        d_model=32,
        max_source_positions=16,
        max_target_positions=32,
        decoder_start_token_id=1,
        attn_implementation=attn,
        **TOKENS,
    )
    return hf("WhisperForConditionalGeneration", cfg)


def convnext(attn: str) -> Any:
    cfg = hf(
        "ConvNextConfig",
        num_channels=3,
        hidden_sizes=[16, 32],
        depths=[2, 2],
        num_stages=2,
        layer_scale_init_value=0.5,
        drop_path_rate=0.1,
        image_size=32,
        num_labels=5,
    )
    return hf("ConvNextForImageClassification", cfg)


def bert(attn: str) -> Any:
    cfg = hf(
        "BertConfig",
        vocab_size=VOCAB,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=64,
        pad_token_id=0,
        attn_implementation=attn,
    )
    return hf("BertForMaskedLM", cfg)


ROPES: dict[str, dict[str, Any]] = {
    "default": {"rope_type": "default", "rope_theta": 10000.0},
    "linear": {"rope_type": "linear", "factor": 2.0, "rope_theta": 10000.0},
    "linear4": {"rope_type": "linear", "factor": 4.0, "rope_theta": 10000.0},
    "dynamic": {"rope_type": "dynamic", "factor": 2.0, "rope_theta": 10000.0},
    "yarn": {
        "rope_type": "yarn",
        "factor": 2.0,
        "rope_theta": 10000.0,
        "original_max_position_embeddings": 32,
    },
    "yarn-beta": {
        "rope_type": "yarn",
        "factor": 2.0,
        "rope_theta": 10000.0,
        "original_max_position_embeddings": 32,
        "beta_slow": 2.0,
    },
    "llama3": {
        "rope_type": "llama3",
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 32,
        "rope_theta": 10000.0,
    },
}


def llama(attn: str, rope: str = "default") -> Any:
    cfg = hf(
        "LlamaConfig",
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        rope_parameters=ROPES[rope],
        attn_implementation=attn,
        **TOKENS,
    )
    return hf("LlamaForCausalLM", cfg)


def qmoe(attn: str, norm_topk: bool = False) -> Any:
    cfg = hf(
        "Qwen2MoeConfig",
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        moe_intermediate_size=32,
        shared_expert_intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        num_experts=4,
        num_experts_per_tok=2,
        norm_topk_prob=norm_topk,
        max_position_embeddings=64,
        attn_implementation=attn,
        **TOKENS,
    )
    return hf("Qwen2MoeForCausalLM", cfg)


def mamba(attn: str) -> Any:
    cfg = hf(
        "MambaConfig", vocab_size=VOCAB, hidden_size=32, state_size=8, num_hidden_layers=2, expand=2, **TOKENS
    )
    return hf("MambaForCausalLM", cfg)


# -- models built in code --------------------------------------------------------------------------


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(32)
        self.up = nn.Linear(32, 64)
        self.down = nn.Linear(64, 32)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))
        return out


class ResMLP(nn.Module):
    """embed -> 2 residual blocks -> head (the base for trace / export targets)."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Linear(16, 32)
        self.blocks = nn.ModuleList([Block(), Block()])
        self.head = nn.Linear(32, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.embed(x)
        for block in self.blocks:
            h = block(h)
        out: torch.Tensor = self.head(h)
        return out


def mean_last(x: torch.Tensor, chunks: int) -> torch.Tensor:
    """Mean over the last dim; with chunks > 1 summed as `chunks` partial sums first (another
    summation order: what another kernel, a split-K reduction or a hand-fused port does)."""
    if chunks <= 1:
        return x.mean(-1, keepdim=True)
    n = x.shape[-1]
    parts = x.reshape(*x.shape[:-1], chunks, n // chunks).sum(-1)
    return parts.sum(-1, keepdim=True) / n


class SubVarNorm(nn.Module):
    """A layer norm whose variance is E[x^2] - E[x]^2 (variance by subtraction: ill-conditioned
    when |mean| >> std; here mean ~100, std ~0.5, so float32 loses ~4 digits of the variance)."""

    def __init__(self, n: int, eps: float = 1e-5, chunks: int = 1, stable: bool = False) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))
        self.bias = nn.Parameter(torch.zeros(n))
        self.eps = eps
        self.chunks = chunks
        self.stable = stable  # the textbook two-pass variance (better conditioned than the reference)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = mean_last(x, self.chunks)
        if self.stable:
            var = mean_last((x - mean) ** 2, self.chunks)
        else:
            var = mean_last(x * x, self.chunks) - mean * mean
        out: torch.Tensor = (x - mean) * torch.rsqrt(var + self.eps) * self.weight + self.bias
        return out


class IllNorm(nn.Module):
    """embed (bias 100: a large common offset) -> SubVarNorm -> GELU -> head."""

    def __init__(self, chunks: int = 1, stable: bool = False) -> None:
        super().__init__()
        self.embed = nn.Linear(16, 256)
        with torch.no_grad():
            self.embed.bias.fill_(100.0)
        self.norm = SubVarNorm(256, chunks=chunks, stable=stable)
        self.act = nn.GELU()
        self.head = nn.Linear(256, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.head(self.act(self.norm(self.embed(x))))
        return out


class OffsetScores(nn.Module):
    """log_softmax of logits with a big common offset (3000: float32 spacing 2.4e-4 there), which
    log_softmax removes exactly in real numbers and not in float32."""

    def __init__(self, split: bool = False, temperature: float = 1.0) -> None:
        super().__init__()
        self.split = split  # the offset added as two halves (another rounding of the same sum)
        self.temperature = temperature
        self.register_buffer("offset", torch.tensor(3000.0))

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        offset: torch.Tensor = self.offset  # type: ignore[assignment]
        logits = (z + offset / 2) + offset / 2 if self.split else z + offset
        out: torch.Tensor = torch.log_softmax(logits / self.temperature, dim=-1)
        return out


class OffsetLM(nn.Module):
    """proj -> OffsetScores: large-magnitude logits with a common offset."""

    def __init__(self, split: bool = False) -> None:
        super().__init__()
        self.proj = nn.Linear(32, 64)
        self.scores = OffsetScores(split)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.scores(self.proj(x))
        return out


class CenteredSum(nn.Module):
    """sum(x + 50) - 50·n over 4096 elements: a long reduction whose big common part cancels."""

    def __init__(self, order: str = "forward") -> None:
        super().__init__()
        self.order = order  # "forward" | "flip" | "chunks": the same sum in another order

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shifted = x + 50.0
        if self.order == "flip":
            shifted = shifted.flip(-1)
        if self.order == "chunks":
            total = shifted.reshape(*shifted.shape[:-1], 64, 64).sum(-1).sum(-1)
        else:
            total = shifted.sum(-1)
        out: torch.Tensor = total - 50.0 * x.shape[-1]
        return out


class SumNet(nn.Module):
    """inp (Linear 8 -> 4096) -> CenteredSum -> head."""

    def __init__(self, order: str = "forward") -> None:
        super().__init__()
        self.inp = nn.Linear(8, 4096)
        self.reduce = CenteredSum(order)
        self.head = nn.Linear(1, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.head(self.reduce(self.inp(x)).unsqueeze(-1))
        return out


BUILD: dict[str, Callable[[str], Any]] = {
    "t5": t5,
    "whisper": whisper,
    "convnext": convnext,
    "bert": bert,
    "llama": llama,
    "llama-lin": lambda attn: llama(attn, "linear"),
    "llama-dyn": lambda attn: llama(attn, "dynamic"),
    "llama-yarn": lambda attn: llama(attn, "yarn"),
    "llama3": lambda attn: llama(attn, "llama3"),
    "qmoe": qmoe,
    "mamba": mamba,
    "resmlp": lambda attn: ResMLP(),
    "illnorm": lambda attn: IllNorm(),
    "offset": lambda attn: OffsetLM(),
    "sumnet": lambda attn: SumNet(),
}


def build(name: str, attn: str = "sdpa") -> nn.Module:
    torch.manual_seed(0)
    model: nn.Module = BUILD[name](attn).eval()
    return model


def seeded(make: Callable[[], nn.Module]) -> Callable[[], nn.Module]:
    """A target maker built like build() does: same seed, so the same weights."""

    def made() -> nn.Module:
        torch.manual_seed(0)
        return make().eval()

    return made


# -- inputs and runs -------------------------------------------------------------------------------

DECODERS = ("llama", "llama-lin", "llama-dyn", "llama-yarn", "llama3", "qmoe", "mamba")


def ids(b: int = 2, t: int = 12) -> torch.Tensor:
    return torch.randint(3, VOCAB, (b, t), generator=gen())


def right_padded(b: int = 2, t: int = 10) -> tuple[torch.Tensor, torch.Tensor]:
    x = ids(b, t)
    mask = torch.ones(b, t, dtype=torch.long)
    x[1, -4:] = 0
    mask[1, -4:] = 0
    return x, mask


def token_types(b: int = 2, t: int = 10) -> torch.Tensor:
    types = torch.zeros(b, t, dtype=torch.long)
    types[:, t // 2 :] = 1
    return types


def inputs(name: str, dtype: torch.dtype | None = None, memory: torch.memory_format | None = None) -> Any:
    """(args, kwargs) of one forward of ``name``; float inputs cast to ``dtype`` when given."""
    dt = dtype or torch.float32
    if name in DECODERS:
        return (ids(),), {}
    if name == "t5":
        src, mask = right_padded()
        return (), {"input_ids": src, "attention_mask": mask, "decoder_input_ids": ids(2, 6)}
    if name == "whisper":
        feats = torch.randn(2, 16, 32, generator=gen()).to(dt)
        return (), {"input_features": feats, "decoder_input_ids": ids(2, 6)}
    if name == "convnext":
        x = torch.randn(2, 3, 32, 32, generator=gen()).to(dt)
        return (x.contiguous(memory_format=memory) if memory else x,), {}
    if name == "bert":
        src, mask = right_padded()
        return (), {"input_ids": src, "attention_mask": mask, "token_type_ids": token_types()}
    if name in ("resmlp", "offset"):
        return (torch.randn(4, 6, 16 if name == "resmlp" else 32, generator=gen()).to(dt),), {}
    if name == "illnorm":
        return (torch.randn(4, 6, 16, generator=gen()).to(dt),), {}
    if name == "sumnet":
        return (torch.randn(4, 8, generator=gen()).to(dt),), {}
    raise KeyError(name)


def call(name: str, model: nn.Module, dtype: torch.dtype | None = None, **extra: Any) -> Any:
    args, kwargs = inputs(name, dtype, extra.pop("memory", None))
    kwargs.update(extra)
    return model(*args, **kwargs)


def forward(name: str, model: nn.Module, ctx: Any) -> Any:
    with torch.no_grad():
        return call(name, model)


def inference_forward(name: str, model: nn.Module, ctx: Any) -> Any:
    with torch.inference_mode():
        return call(name, model)


def two_threads(name: str, model: nn.Module, ctx: Any) -> Any:
    torch.set_num_threads(2)
    try:
        return forward(name, model, ctx)
    finally:
        torch.set_num_threads(1)


def autocast_forward(name: str, model: nn.Module, ctx: Any) -> Any:
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        return call(name, model)


def half_forward(name: str, model: nn.Module, ctx: Any) -> Any:
    """The target is model.half() (done by the case's target_wrap); inputs cast to float16."""
    with torch.no_grad():
        return call(name, model, dtype=torch.float16)


def channels_last_forward(name: str, model: nn.Module, ctx: Any) -> Any:
    with torch.no_grad():
        return call(name, model, memory=torch.channels_last)


def no_mask(name: str, model: nn.Module, ctx: Any) -> Any:
    """A real bug: the target's pipeline drops the padding mask."""
    args, kwargs = inputs(name)
    kwargs.pop("attention_mask")
    with torch.no_grad():
        return model(*args, **kwargs)


def no_token_types(name: str, model: nn.Module, ctx: Any) -> Any:
    """A real bug: the target's pipeline drops token_type_ids (segment B read as segment A)."""
    args, kwargs = inputs(name)
    kwargs.pop("token_type_ids")
    with torch.no_grad():
        return model(*args, **kwargs)


def shifted_positions(name: str, model: nn.Module, ctx: Any) -> Any:
    """A real bug: position ids off by one."""
    args, kwargs = inputs(name)
    x = kwargs.get("input_ids", args[0] if args else None)
    assert x is not None
    kwargs["position_ids"] = torch.arange(1, x.shape[1] + 1).expand(x.shape[0], -1)
    with torch.no_grad():
        return model(*args, **kwargs)


def loss_of(name: str, model: nn.Module) -> torch.Tensor:
    if name in DECODERS:
        x = ids(4, 12)
        return model(input_ids=x, labels=x).loss  # type: ignore[no-any-return]
    if name == "t5":
        src, mask = right_padded(4)
        return model(input_ids=src, attention_mask=mask, labels=ids(4, 6)).loss  # type: ignore[no-any-return]
    out = call(name, model)
    logits = out if isinstance(out, torch.Tensor) else out.logits
    return logits.float().pow(2).mean()


def train_step(name: str, model: nn.Module, ctx: Any) -> Any:
    model.train()
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=1e-1)
    loss = loss_of(name, model)
    loss.backward()  # type: ignore[no-untyped-call]
    opt.step()
    opt.zero_grad()
    return loss


def greedy_two_threads(name: str, model: nn.Module, ctx: Any) -> Any:
    """The same greedy generate on 2 threads. (Fixed after the first run: the case first used
    two_threads, which runs a plain 12-token forward, not the recorded 8-token generate.)"""
    torch.set_num_threads(2)
    try:
        return greedy(name, model, ctx)
    finally:
        torch.set_num_threads(1)


def greedy(name: str, model: nn.Module, ctx: Any) -> Any:
    kwargs: dict[str, Any] = {"max_new_tokens": 5, "do_sample": False, "pad_token_id": 0}
    if name == "t5":
        src, mask = right_padded(2, 8)
    else:
        src, mask = ids(2, 8), torch.ones(2, 8, dtype=torch.long)
    with torch.no_grad():
        out = untyped(model).generate(src, attention_mask=mask, **kwargs)
    if ctx is not None:
        ctx.tap("sequences", out)
    return out


# -- wrappers (benign) and changes (real) ----------------------------------------------------------


class DDPLike(nn.Module):
    """DistributedDataParallel's shape: the model as `.module`, forward passed through."""

    def __init__(self, module: nn.Module) -> None:
        super().__init__()
        self.module = module

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)


def halved(model: nn.Module) -> nn.Module:
    return model.half()


def to_channels_last(model: nn.Module) -> nn.Module:
    return model.to(memory_format=torch.channels_last)  # type: ignore[call-overload,no-any-return]


def traced(model: nn.Module) -> nn.Module:
    args, _ = inputs("resmlp")
    return torch.jit.trace(model, args)  # type: ignore[no-untyped-call,no-any-return,unused-ignore]


def exported(model: nn.Module) -> nn.Module:
    args, _ = inputs("resmlp")
    return torch.export.export(model, args).module()  # type: ignore[return-value,unused-ignore]


def unflattened(model: nn.Module) -> nn.Module:
    args, _ = inputs("resmlp")
    return torch.export.unflatten(torch.export.export(model, args))  # type: ignore[return-value,unused-ignore]


def at(model: nn.Module, path: str) -> nn.Module:
    return model.get_submodule(path) if path else model


def perturb(path: str, param: str = "weight", scale: float = 1e-3) -> Callable[[nn.Module], None]:
    def change(model: nn.Module) -> None:
        with torch.no_grad():
            tensor = getattr(at(model, path), param)
            tensor.add_(scale * torch.randn(tensor.shape, generator=gen(7)).to(tensor.dtype))

    return change


def poke(path: str, param: str, index: tuple[int, ...], amount: float) -> Callable[[nn.Module], None]:
    """A one-element change: ``param[index] += amount``."""

    def change(model: nn.Module) -> None:
        with torch.no_grad():
            getattr(at(model, path), param)[index] += amount

    return change


def set_attr(path: str, **values: Any) -> Callable[[nn.Module], None]:
    def change(model: nn.Module) -> None:
        for key, value in values.items():
            setattr(at(model, path), key, value)

    return change


def replace(path: str, make: Callable[[], nn.Module]) -> Callable[[nn.Module], None]:
    def change(model: nn.Module) -> None:
        parent, _, leaf = path.rpartition(".")
        setattr(at(model, parent), leaf, make())

    return change


def train_mode(path: str) -> Callable[[nn.Module], None]:
    def change(model: nn.Module) -> None:
        at(model, path).train()

    return change


def chain(*changes: Callable[[nn.Module], Any]) -> Callable[[nn.Module], None]:
    def change(model: nn.Module) -> None:
        for one in changes:
            one(model)

    return change


# -- the cases (expectations written before the first run) -----------------------------------------


@dataclass
class Case:
    model: str
    feature: str
    change: str
    expect: str  # "pass" | "fail"
    where: str | None = None  # "|"-separated module-path fragments, any of which is right
    run: Run = forward
    verify_run: Run | None = None
    target_attn: str = "sdpa"
    mutate: Callable[[nn.Module], Any] | None = None
    target_wrap: Callable[[nn.Module], nn.Module] | None = None
    build_target: Callable[[], nn.Module] | None = None


def pass_cases() -> list[Case]:
    """Benign variants: must pass (or pass with limitations)."""
    out: list[Case] = []
    add = out.append
    for m in ("t5", "whisper", "convnext", "bert", "llama-yarn", "qmoe", "mamba"):
        add(Case(m, "forward", "none", "pass"))
        add(Case(m, "forward", "threads 1 -> 2", "pass", verify_run=two_threads))
        add(Case(m, "forward", "autocast bf16 target", "pass", verify_run=autocast_forward))
    for m in ("t5", "whisper", "bert", "llama-yarn", "qmoe"):
        add(Case(m, "forward", "sdpa -> eager", "pass", target_attn="eager"))
    for m in ("whisper", "convnext", "bert", "llama-lin", "qmoe"):
        add(Case(m, "forward", "model.half() target", "pass", verify_run=half_forward, target_wrap=halved))
    for m in ("llama", "llama-lin", "llama-dyn", "llama3"):
        add(Case(m, "forward", "none", "pass"))
    add(Case("llama3", "forward", "sdpa -> eager", "pass", target_attn="eager"))
    add(Case("llama3", "forward", "autocast bf16 target", "pass", verify_run=autocast_forward))
    add(
        Case(
            "llama",
            "forward",
            "default rope -> dynamic x2 (12 tokens < original max: same rope)",
            "pass",
            build_target=seeded(lambda: llama("sdpa", "dynamic")),
        )
    )
    add(Case("t5", "greedy generate (tap)", "none", "pass", run=greedy))
    add(Case("t5", "greedy generate (tap)", "sdpa -> eager", "pass", run=greedy, target_attn="eager"))
    add(Case("llama-yarn", "greedy generate (tap)", "none", "pass", run=greedy))
    add(
        Case(
            "llama-yarn",
            "greedy generate (tap)",
            "threads 1 -> 2",
            "pass",
            run=greedy,
            verify_run=greedy_two_threads,
        )
    )
    add(Case("t5", "forward", "DDP-style .module target", "pass", target_wrap=DDPLike))
    add(Case("mamba", "forward", "DDP-style .module target", "pass", target_wrap=DDPLike))
    add(Case("bert", "forward", "inference_mode target", "pass", verify_run=inference_forward))
    add(Case("mamba", "forward", "inference_mode target", "pass", verify_run=inference_forward))
    add(Case("convnext", "forward", "channels_last", "pass", verify_run=channels_last_forward))
    add(
        Case(
            "convnext",
            "forward",
            "channels_last model + input",
            "pass",
            verify_run=channels_last_forward,
            target_wrap=to_channels_last,
        )
    )
    add(Case("convnext", "train step (drop path on)", "none", "pass", run=train_step))
    add(Case("t5", "train step", "none", "pass", run=train_step))
    add(Case("qmoe", "train step", "none", "pass", run=train_step))
    # Exported / traced targets of an eager recording.
    add(Case("resmlp", "forward", "torch.jit.trace target", "pass", target_wrap=traced))
    add(Case("resmlp", "forward", "torch.export .module() target", "pass", target_wrap=exported))
    add(Case("resmlp", "forward", "torch.export unflatten target", "pass", target_wrap=unflattened))
    # Ill-conditioned but benign: float32 rounding beyond the elementwise tolerance.
    for m in ("illnorm", "offset", "sumnet"):
        add(Case(m, "forward", "none", "pass"))
        add(Case(m, "forward", "threads 1 -> 2", "pass", verify_run=two_threads))
    add(
        Case(
            "illnorm",
            "forward",
            "E[x^2]-E[x]^2 summed in 8 chunks",
            "pass",
            build_target=seeded(lambda: IllNorm(chunks=8)),
        )
    )
    add(
        Case(
            "illnorm",
            "forward",
            "variance two-pass (more precise than the reference)",
            "pass",
            build_target=seeded(lambda: IllNorm(stable=True)),
        )
    )
    add(
        Case(
            "illnorm",
            "forward",
            "chunked sums + DDP-style wrapper",
            "pass",
            build_target=seeded(lambda: DDPLike(IllNorm(chunks=8))),
        )
    )
    add(
        Case(
            "offset",
            "forward",
            "offset added as two halves",
            "pass",
            build_target=seeded(lambda: OffsetLM(split=True)),
        )
    )
    add(
        Case(
            "sumnet",
            "forward",
            "the 4096-long sum reversed",
            "pass",
            build_target=seeded(lambda: SumNet("flip")),
        )
    )
    add(
        Case(
            "sumnet",
            "forward",
            "the 4096-long sum as 64 partial sums",
            "pass",
            build_target=seeded(lambda: SumNet("chunks")),
        )
    )
    return out


def fail_cases() -> list[Case]:
    """Real changes: must fail, naming the module."""
    out: list[Case] = []
    add = out.append

    def real(model: str, change: str, where: str, mutate: Any = None, **kw: Any) -> None:
        add(Case(model, kw.pop("feature", "forward"), change, "fail", where, mutate=mutate, **kw))

    # T5
    sa0 = "encoder.block.0.layer.0.SelfAttention"
    real(
        "t5",
        "relative_attention_bias +1e-3 (encoder block 0)",
        sa0,
        perturb(f"{sa0}.relative_attention_bias"),
    )
    real(
        "t5",
        "relative_attention_max_distance 16 -> 32 (encoder block 0)",
        sa0,
        set_attr(sa0, relative_attention_max_distance=32),
    )
    real(
        "t5",
        "encoder final_layer_norm eps 1e-6 -> 1e-2",
        "encoder.final_layer_norm",
        set_attr("encoder.final_layer_norm", variance_epsilon=1e-2),
    )
    real(
        "t5",
        "DenseReluDense ReLU -> GELU (encoder block 1)",
        "encoder.block.1.layer.1.DenseReluDense",
        replace("encoder.block.1.layer.1.DenseReluDense.act", nn.GELU),
    )
    real("t5", "encoder padding mask dropped", "encoder.block.0", verify_run=no_mask)
    real(
        "t5",
        "cross-attention k +1e-3 (decoder block 1)",
        "decoder.block.1.layer.1.EncDecAttention",
        perturb("decoder.block.1.layer.1.EncDecAttention.k"),
        feature="greedy generate (tap)",
        run=greedy,
    )
    # Corrected after the first run, provably: T5 ties lm_head to `shared` (= encoder.embed_tokens:
    # `model.lm_head.weight is model.shared.weight`), so the first call to use the poked row is the
    # encoder's embedding. The expectation was "lm_head".
    real(
        "t5",
        "lm_head one element +1e-2 (tied: the embedding)",
        "encoder.embed_tokens",
        poke("lm_head", "weight", (5, 3), 1e-2),
    )
    # Whisper
    real("whisper", "conv1 weight +1e-3", "model.encoder.conv1", perturb("model.encoder.conv1"))
    real("whisper", "conv2 bias only +1e-3", "model.encoder.conv2", perturb("model.encoder.conv2", "bias"))
    real(
        "whisper",
        "encoder embed_positions +1e-3",
        "model.encoder.embed_positions",
        perturb("model.encoder.embed_positions"),
    )
    real(
        "whisper",
        "encoder layer 1 GELU -> tanh GELU",
        "model.encoder.layers.1.activation_fn",
        replace("model.encoder.layers.1.activation_fn", lambda: nn.GELU(approximate="tanh")),
    )
    real(
        "whisper",
        "decoder layer_norm eps 1e-5 -> 1e-2",
        "model.decoder.layer_norm",
        set_attr("model.decoder.layer_norm", eps=1e-2),
    )
    real(
        "whisper",
        "decoder self-attn scaling x1.1 (layer 0)",
        "model.decoder.layers.0.self_attn",
        set_attr("model.decoder.layers.0.self_attn", scaling=0.3535533905932738 * 1.1),
    )
    real(
        "whisper",
        "encoder_attn v_proj +1e-3 (decoder layer 1), autocast both",
        "model.decoder.layers.1.encoder_attn.v_proj",
        perturb("model.decoder.layers.1.encoder_attn.v_proj"),
        run=autocast_forward,
    )
    # ConvNeXt
    s1 = "convnext.encoder.stages.1"
    real(
        "convnext",
        "layer_scale_parameter +1e-3 (stage 1 layer 0)",
        f"{s1}.layers.0",
        perturb(f"{s1}.layers.0", "layer_scale_parameter"),
    )
    s0 = "convnext.encoder.stages.0"
    real(
        "convnext",
        "dwconv weight +1e-3 (stage 0 layer 1)",
        f"{s0}.layers.1.dwconv",
        perturb(f"{s0}.layers.1.dwconv"),
    )
    real(
        "convnext",
        "drop path left on in eval (stage 1 layer 1)",
        f"{s1}.layers.1.drop_path",
        train_mode(f"{s1}.layers.1.drop_path"),
    )
    real(
        "convnext",
        "layernorm eps 1e-6 -> 1e-2 (stage 1 layer 1)",
        f"{s1}.layers.1.layernorm",
        set_attr(f"{s1}.layers.1.layernorm", eps=1e-2),
    )
    real(
        "convnext",
        "GELU -> tanh GELU (stage 0 layer 0)",
        f"{s0}.layers.0.act",
        replace(f"{s0}.layers.0.act", lambda: nn.GELU(approximate="tanh")),
    )
    real(
        "convnext",
        "downsampling conv bias only +1e-3",
        f"{s1}.downsampling_layer.1",
        perturb(f"{s1}.downsampling_layer.1", "bias"),
    )
    real(
        "convnext",
        "pwconv2 +1e-3 (stage 1 layer 1), channels_last target",
        f"{s1}.layers.1.pwconv2",
        perturb(f"{s1}.layers.1.pwconv2"),
        verify_run=channels_last_forward,
    )
    # BERT masked-LM
    real("bert", "attention mask dropped", "bert.encoder.layer.0.attention", verify_run=no_mask)
    real("bert", "token_type_ids dropped", "bert.embeddings.token_type_embeddings", verify_run=no_token_types)
    real("bert", "position ids off by one", "bert.embeddings", verify_run=shifted_positions)
    real(
        "bert",
        "word_embeddings one element +1e-2",
        "bert.embeddings.word_embeddings",
        poke("bert.embeddings.word_embeddings", "weight", (int(ids(2, 10)[0, 0]), 3), 1e-2),
    )
    real(
        "bert",
        "attention.output.LayerNorm bias only +1e-3 (layer 1)",
        "bert.encoder.layer.1.attention.output.LayerNorm",
        perturb("bert.encoder.layer.1.attention.output.LayerNorm", "bias"),
    )
    real(
        "bert",
        "MLM head GELU -> ReLU",
        "cls.predictions.transform",
        replace("cls.predictions.transform.transform_act_fn", nn.ReLU),
    )
    real(
        "bert",
        "value +1e-3 (layer 0), sdpa -> eager target",
        "bert.encoder.layer.0.attention.self.value",
        perturb("bert.encoder.layer.0.attention.self.value"),
        target_attn="eager",
    )
    # Llama RoPE scaling
    real(
        "llama-lin",
        "linear factor 2 -> 4",
        "model.rotary_emb",
        build_target=seeded(lambda: llama("sdpa", "linear4")),
    )
    real(
        "llama3",
        "llama3 scaling dropped (default rope)",
        "model.rotary_emb",
        build_target=seeded(lambda: llama("sdpa", "default")),
    )
    real(
        "llama-yarn",
        "yarn beta_slow 1 -> 2",
        "model.rotary_emb",
        build_target=seeded(lambda: llama("sdpa", "yarn-beta")),
    )
    real(
        "llama-yarn",
        "yarn attention_scaling x1.01",
        "model.rotary_emb",
        set_attr("model.rotary_emb", attention_scaling=1.0693147180559945 * 1.01),
    )
    real(
        "llama-yarn",
        "o_proj +1e-3 (layer 1)",
        "model.layers.1.self_attn.o_proj",
        perturb("model.layers.1.self_attn.o_proj"),
        feature="greedy generate (tap)",
        run=greedy,
    )
    real(
        "llama-lin",
        "input_layernorm eps 1e-6 -> 1e-2 (layer 1)",
        "model.layers.1.input_layernorm",
        set_attr("model.layers.1.input_layernorm", variance_epsilon=1e-2),
    )
    real("llama-lin", "position ids off by one", "model.rotary_emb", verify_run=shifted_positions)
    # Qwen2-MoE
    real(
        "qmoe",
        "shared_expert_gate +1e-3 (layer 1)",
        "model.layers.1.mlp.shared_expert_gate",
        perturb("model.layers.1.mlp.shared_expert_gate"),
    )
    real(
        "qmoe",
        "experts down_proj +1e-3 (layer 0)",
        "model.layers.0.mlp.experts",
        perturb("model.layers.0.mlp.experts", "down_proj"),
    )
    real(
        "qmoe",
        "norm_topk_prob False -> True",
        "model.layers.0.mlp",
        build_target=seeded(lambda: qmoe("sdpa", True)),
    )
    real(
        "qmoe",
        "router top_k 2 -> 1 (layer 1)",
        "model.layers.1.mlp",
        set_attr("model.layers.1.mlp.gate", top_k=1),
    )
    real(
        "qmoe",
        "shared expert SiLU -> GELU (layer 0)",
        "model.layers.0.mlp.shared_expert",
        replace("model.layers.0.mlp.shared_expert.act_fn", nn.GELU),
    )
    real(
        "qmoe", "router weight +1e-3 (layer 0)", "model.layers.0.mlp.gate", perturb("model.layers.0.mlp.gate")
    )
    # Mamba
    real(
        "mamba",
        "A_log +1e-3 (layer 1)",
        "backbone.layers.1.mixer",
        perturb("backbone.layers.1.mixer", "A_log"),
    )
    real(
        "mamba",
        "conv1d bias only +1e-3 (layer 0)",
        "backbone.layers.0.mixer.conv1d",
        perturb("backbone.layers.0.mixer.conv1d", "bias"),
    )
    real(
        "mamba",
        "D one element +1e-2 (layer 1)",
        "backbone.layers.1.mixer",
        poke("backbone.layers.1.mixer", "D", (5,), 1e-2),
    )
    real(
        "mamba",
        "dt_proj bias only +1e-3 (layer 0)",
        "backbone.layers.0.mixer.dt_proj",
        perturb("backbone.layers.0.mixer.dt_proj", "bias"),
    )
    real(
        "mamba",
        "norm eps 1e-5 -> 1e-2 (layer 1)",
        "backbone.layers.1.norm",
        set_attr("backbone.layers.1.norm", variance_epsilon=1e-2),
    )
    # Exported / traced targets with a real change made before export. Traced and ep.module()
    # graphs inline their submodules (no module calls to name): any module is right there.
    real("resmlp", "blocks.1.up +1e-3, then jit.trace", "", perturb("blocks.1.up"), target_wrap=traced)
    real(
        "resmlp", "blocks.1.up +1e-3, then export .module()", "", perturb("blocks.1.up"), target_wrap=exported
    )
    real(
        "resmlp",
        "blocks.1.up +1e-3, then export unflatten",
        "blocks.1.up",
        perturb("blocks.1.up"),
        target_wrap=unflattened,
    )
    real(
        "resmlp",
        "blocks.0.norm eps -> 1e-2, then export unflatten",
        "blocks.0.norm",
        set_attr("blocks.0.norm", eps=1e-2),
        target_wrap=unflattened,
    )
    # Ill-conditioned models: real changes, alone and next to a benign reordering.
    real("illnorm", "embed weight +1e-3", "embed", perturb("embed"))
    real("illnorm", "norm eps 1e-5 -> 1e-1", "norm", set_attr("norm", eps=1e-1))
    real(
        "illnorm",
        "chunked sums + norm eps 1e-5 -> 1e-1",
        "norm",
        set_attr("norm", eps=1e-1),
        build_target=seeded(lambda: IllNorm(chunks=8)),
    )
    real(
        "illnorm",
        "chunked sums + norm weight one element +1e-2",
        "norm",
        poke("norm", "weight", (17,), 1e-2),
        build_target=seeded(lambda: IllNorm(chunks=8)),
    )
    real("illnorm", "head bias only +1e-3", "head", perturb("head", "bias"))
    real(
        "illnorm",
        "chunked sums + GELU -> tanh GELU",
        "act",
        replace("act", lambda: nn.GELU(approximate="tanh")),
        build_target=seeded(lambda: IllNorm(chunks=8)),
    )
    real("offset", "proj weight +1e-3", "proj", perturb("proj"))
    real(
        "offset",
        "offset halves + temperature 1 -> 1.01",
        "scores",
        set_attr("scores", temperature=1.01),
        build_target=seeded(lambda: OffsetLM(split=True)),
    )
    real(
        "offset",
        "offset halves + proj bias only +1e-3",
        "proj",
        perturb("proj", "bias"),
        build_target=seeded(lambda: OffsetLM(split=True)),
    )
    real("sumnet", "inp one element +1e-2", "inp", poke("inp", "weight", (100, 3), 1e-2))
    real(
        "sumnet",
        "reversed sum + inp weight +1e-3",
        "inp",
        perturb("inp"),
        build_target=seeded(lambda: SumNet("flip")),
    )
    real(
        "sumnet",
        "reversed sum + head weight one element +1e-2",
        "head",
        poke("head", "weight", (1, 0), 1e-2),
        build_target=seeded(lambda: SumNet("flip")),
    )
    return out


def cases() -> list[Case]:
    return pass_cases() + fail_cases()


# -- running and scoring ---------------------------------------------------------------------------


def make_target(case: Case) -> nn.Module:
    target = case.build_target() if case.build_target else build(case.model, case.target_attn)
    if case.mutate:
        case.mutate(target)
    return case.target_wrap(target) if case.target_wrap else target


def flat(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value.detach().float()]
    if isinstance(value, dict):
        return [t for v in value.values() for t in flat(v)]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in flat(v)]
    if hasattr(value, "to_tuple"):
        return flat(value.to_tuple())
    return []


def has_effect(case: Case) -> bool:
    """Does the injected change change anything without envsnap (outputs, buffers, parameters)?
    A greedy generate's tokens may not flip on a 1e-3 change while every logit moved."""
    reference = build(case.model)
    target = make_target(case)
    a = flat(case.run(case.model, reference, None))
    b = flat((case.verify_run or case.run)(case.model, target, None))
    a += flat([t for _, t in sorted((*reference.named_buffers(), *reference.named_parameters()))])
    b += flat([t for _, t in sorted((*target.named_buffers(), *target.named_parameters()))])
    if len(a) != len(b):
        return True
    return any(x.shape != y.shape or not torch.equal(x, y) for x, y in zip(a, b, strict=True))


def dry(case: Case, bundle: Path) -> tuple[str, str]:
    """Without envsnap: a real change must change the outputs; a benign target must run."""
    if case.expect == "fail":
        return ("has-effect", "") if has_effect(case) else ("NO-EFFECT", "")
    reference = build(case.model)
    target = make_target(case)
    a = flat(case.run(case.model, reference, None))
    b = flat((case.verify_run or case.run)(case.model, target, None))
    worst = max(
        (float((x - y).abs().max()) for x, y in zip(a, b, strict=True) if x.shape == y.shape), default=0.0
    )
    return "runs", f"max-abs {worst:.3g}"


def trial(case: Case, bundle: Path) -> tuple[str, str]:
    if case.expect == "fail":
        try:
            effect = has_effect(case)
        except Exception as exc:  # the change breaks the model itself
            return "TARGET-RAISES", f"without envsnap: {type(exc).__name__}: {str(exc)[:120]} (harness)"
        if not effect:
            return "NO-EFFECT", "the injected change changed nothing (harness)"
    reference = build(case.model)
    with envsnap.record(bundle, model=reference, environment="none") as rec:
        case.run(case.model, reference, rec)
    target = make_target(case)
    with envsnap.verify(bundle, model=target, environment="none") as v:
        (case.verify_run or case.run)(case.model, target, v)
    report = v.report
    first = report.first_divergence
    said = f"{report.verdict}"
    if first is not None:
        said += f" @ {first.module}"
    elif report.reasons:
        said += f" ({report.reasons[0][:240]})"
    limits = f" [{report.limitations[0][:200]}]" if report.limitations else ""
    if case.expect == "pass":
        if report.verdict in ("pass", "pass-with-limitations"):
            return "ok", said + limits
        if report.verdict == "slow":
            return "SLOW-ALARM", said
        return "FALSE-ALARM", said + ("" if first is None else f" :: {first.summary[:400]}")
    if report.verdict != "fail":
        return "MISS", said + f" {report.limitations[:2]}"
    places = [p for p in case.where.split("|") if p] if case.where else []
    if places and (first is None or not any(p in first.module for p in places)):
        return "WRONG-LAYER", said + f" (expected {case.where}) :: {first.summary[:400] if first else ''}"
    return "ok", said


def main() -> int:
    argv = [a for a in sys.argv[1:] if a != "--dry"]
    sys.argv[1:] = argv
    return run_cases(
        cases(),
        dry if "--dry" in sys.argv or DRY else trial,
        lambda case: f"{case.model:10s} {case.feature:22s} {case.change}",
        width=100,
        detail_chars=300,
    )


DRY = False

if __name__ == "__main__":
    DRY = "--dry" in sys.argv
    sys.exit(main())
