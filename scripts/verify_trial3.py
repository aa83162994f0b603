"""Blind trial, round 3, of envsnap.record / envsnap.verify on code paths rounds 1-2 left out (#23).

Round 1 (scripts/hf_verify_trial.py): GPT-2, Llama, BERT, T5, ViT, Whisper, Mamba. Round 2
(scripts/verify_trial2.py): CNNs with BatchNorm, Swin, SegFormer, MoE, beam search, RNNs, int8,
TorchScript. This round: HF models with their own code paths (Gemma2 sliding-window attention and
logit soft-capping, Qwen2 GQA with linear RoPE scaling, Phi3's fused qkv/gate_up projections,
DeBERTa-v2 relative attention and ELECTRA with token_type_ids, CLIP's two towers and logit scale,
Wav2Vec2/HuBERT conv feature extractors with GroupNorm, DistilBERT int8), a static KV cache in
generate, torch.inference_mode, model.half() CPU targets, float64 default-dtype targets, Conv3d in
channels_last_3d, activation checkpointing (reentrant and not), weight tying, fused vs split QKV,
nn.MultiheadAttention / TransformerEncoderLayer fast path vs slow path. Random-init tiny configs
(no downloads), CPU, one torch thread, environment="none".

Each case's expectation is written in the case table *before* the trial ran:

  expect "pass":     verdict pass / pass-with-limitations (anything else numeric: FALSE ALARM;
                     `slow` alone is counted apart, as a timing alarm)
  expect "fail":     verdict fail, and the first divergence's module path must contain one of
                     `where` ("|"-separated; otherwise WRONG LAYER; None: any module); a pass is a MISS
  expect "refactor": a pass, or a fail whose message names the refactored module (`where`) as
                     missing/unmatched rather than a numeric divergence elsewhere (else UNCLEAR)
  any exception: CRASH (the traceback's last envsnap frame is printed)

A real change must be a change: each "fail" case first runs reference and target without envsnap;
an injected change with no effect there is NO-EFFECT, one that makes the model raise is
TARGET-RAISES (harness problems, not scored).

Run: python scripts/verify_trial3.py [filter]   (needs transformers; not part of the test suite)
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import torch.utils.checkpoint
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
Run = Callable[[str, nn.Module, Any], Any]  # (model name, model, recorder/verifier) -> outputs


def gen(seed: int = 1) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


# -- HF models (random init, tiny) -----------------------------------------------------------------


def qwen2(attn: str, factor: float = 2.0, tie: bool = False) -> Any:
    cfg = hf(
        "Qwen2Config",
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        tie_word_embeddings=tie,
        attn_implementation=attn,
        rope_parameters={"rope_type": "linear", "factor": factor, "rope_theta": 10000.0},
    )
    return hf("Qwen2ForCausalLM", cfg)


def gemma2(attn: str, window: int = 4, attn_cap: float = 50.0, final_cap: float = 30.0) -> Any:
    cfg = hf(
        "Gemma2Config",
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        query_pre_attn_scalar=16,
        max_position_embeddings=64,
        sliding_window=window,
        attn_logit_softcapping=attn_cap,
        final_logit_softcapping=final_cap,
        attn_implementation="eager",  # Gemma2 has no sdpa path (soft-capping is in its eager code)
    )
    return hf("Gemma2ForCausalLM", cfg)


def phi3(attn: str) -> Any:
    cfg = hf(
        "Phi3Config",
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        original_max_position_embeddings=64,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
        attn_implementation=attn,
    )
    return hf("Phi3ForCausalLM", cfg)


def deberta(attn: str) -> Any:
    cfg = hf(
        "DebertaV2Config",
        vocab_size=VOCAB,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=128,
        max_position_embeddings=64,
        type_vocab_size=2,
        relative_attention=True,
        position_buckets=8,
        max_relative_positions=16,
        pos_att_type=["p2c", "c2p"],
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        num_labels=3,
    )
    return hf("DebertaV2ForSequenceClassification", cfg)


def electra(attn: str) -> Any:
    cfg = hf(
        "ElectraConfig",
        vocab_size=VOCAB,
        embedding_size=32,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=128,
        max_position_embeddings=64,
        type_vocab_size=2,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        num_labels=3,
    )
    return hf("ElectraForSequenceClassification", cfg)


def clip(attn: str) -> Any:
    text = {
        "vocab_size": VOCAB,
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "max_position_embeddings": 16,
        "eos_token_id": 2,
        "bos_token_id": 0,
        "pad_token_id": 1,
    }
    vision = {
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "image_size": 32,
        "patch_size": 8,
    }
    cfg = hf(
        "CLIPConfig", text_config=text, vision_config=vision, projection_dim=16, attn_implementation=attn
    )
    return hf("CLIPModel", cfg)


def speech_config(kind: str) -> Any:
    return hf(
        f"{kind}Config",
        vocab_size=32,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        conv_dim=(16, 16, 16),
        conv_stride=(5, 2, 2),
        conv_kernel=(10, 3, 3),
        num_conv_pos_embeddings=16,
        num_conv_pos_embedding_groups=4,
        feat_extract_norm="group",
        hidden_dropout=0.0,
        activation_dropout=0.0,
        attention_dropout=0.0,
        feat_proj_dropout=0.0,
        layerdrop=0.0,
        mask_time_prob=0.0,
        mask_feature_prob=0.0,
    )


def wav2vec2(attn: str) -> Any:
    return hf("Wav2Vec2Model", speech_config("Wav2Vec2"))


def hubert(attn: str) -> Any:
    return hf("HubertModel", speech_config("Hubert"))


def distilbert(attn: str) -> Any:
    cfg = hf(
        "DistilBertConfig",
        vocab_size=VOCAB,
        dim=64,
        n_layers=2,
        n_heads=4,
        hidden_dim=128,
        max_position_embeddings=64,
        dropout=0.0,
        attention_dropout=0.0,
        num_labels=3,
    )
    return hf("DistilBertForSequenceClassification", cfg)


# -- models built in code --------------------------------------------------------------------------


class Conv3dNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv3d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm3d(8)
        self.conv2 = nn.Conv3d(8, 8, 3, padding=1)
        self.fc = nn.Linear(8, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.bn1(self.conv1(x)))
        x = torch.relu(self.conv2(x))
        out: torch.Tensor = self.fc(x.mean(dim=(2, 3, 4)))
        return out


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(32)
        self.up = nn.Linear(32, 64)
        self.down = nn.Linear(64, 32)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))
        return out


class CheckpointedMLP(nn.Module):
    """Residual MLP blocks; ``mode`` None / "reentrant" / "non-reentrant" activation checkpointing."""

    def __init__(self, mode: str | None = None) -> None:
        super().__init__()
        self.blocks = nn.ModuleList([Block() for _ in range(3)])
        self.head = nn.Linear(32, 4)
        self.mode = mode

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            if self.mode is None or not torch.is_grad_enabled():
                x = block(x)
            else:
                x = torch.utils.checkpoint.checkpoint(block, x, use_reentrant=self.mode == "reentrant")
        out: torch.Tensor = self.head(x)
        return out


class TinyLM(nn.Module):
    """Embedding -> 2 blocks -> lm_head, the head's weight tied to the embedding's."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 32)
        self.blocks = nn.Sequential(Block(), Block())
        self.lm_head = nn.Linear(32, VOCAB, bias=False)
        self.lm_head.weight = self.embed.weight

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.lm_head(self.blocks(self.embed(input_ids)))
        return out


class FusedAttention(nn.Module):
    """Self-attention with one fused qkv projection (GPT-2 / Phi3 style)."""

    def __init__(self) -> None:
        super().__init__()
        self.qkv = nn.Linear(32, 96)
        self.out = nn.Linear(32, 32)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return self.out(attend(q, k, v))  # type: ignore[no-any-return]


class SplitAttention(nn.Module):
    """The same attention refactored to separate q/k/v projections (Llama style)."""

    def __init__(self) -> None:
        super().__init__()
        self.q = nn.Linear(32, 32)
        self.k = nn.Linear(32, 32)
        self.v = nn.Linear(32, 32)
        self.out = nn.Linear(32, 32)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(attend(self.q(x), self.k(x), self.v(x)))  # type: ignore[no-any-return]


def attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    b, t, _ = q.shape
    qh, kh, vh = (x.view(b, t, 4, 8).transpose(1, 2) for x in (q, k, v))
    out = torch.nn.functional.scaled_dot_product_attention(qh, kh, vh, is_causal=True)
    return out.transpose(1, 2).reshape(b, t, 32)


class AttnNet(nn.Module):
    def __init__(self, split: bool = False) -> None:
        super().__init__()
        self.embed = nn.Linear(16, 32)
        self.attn: nn.Module = SplitAttention() if split else FusedAttention()
        self.head = nn.Linear(32, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.embed(x)
        out: torch.Tensor = self.head(h + self.attn(h))
        return out


def split_from_fused(fused: AttnNet) -> AttnNet:
    """The refactor: split the fused qkv weights into q/k/v, everything else copied."""
    split = AttnNet(split=True).eval()
    state = {k: v for k, v in fused.state_dict().items() if ".qkv." not in k}
    qkv = fused.get_submodule("attn.qkv")
    assert isinstance(qkv, nn.Linear)
    for part, w, b in zip(
        ("q", "k", "v"), qkv.weight.detach().chunk(3), qkv.bias.detach().chunk(3), strict=True
    ):
        state[f"attn.{part}.weight"] = w.clone()
        state[f"attn.{part}.bias"] = b.clone()
    split.load_state_dict(state)
    return split


class MHANet(nn.Module):
    """nn.TransformerEncoderLayer (fast path in eval under no_grad) + an nn.MultiheadAttention."""

    def __init__(self) -> None:
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
        self.mha = nn.MultiheadAttention(32, 4, dropout=0.0, batch_first=True)
        self.head = nn.Linear(32, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.layer(x)
        a, _ = self.mha(h, h, h, need_weights=False)
        out: torch.Tensor = self.head(a)
        return out


def mlp(attn: str) -> nn.Module:
    return nn.Sequential(nn.Linear(32, 64), nn.LayerNorm(64), nn.GELU(), nn.Linear(64, 10))


BUILD: dict[str, Callable[[str], Any]] = {
    "qwen2": qwen2,
    "gemma2": gemma2,
    "phi3": phi3,
    "deberta": deberta,
    "electra": electra,
    "clip": clip,
    "wav2vec2": wav2vec2,
    "hubert": hubert,
    "distilbert": distilbert,
    "distil-int8": distilbert,
    "conv3d": lambda attn: Conv3dNet(),
    "ckpt-mlp": lambda attn: CheckpointedMLP(),
    "tiny-lm": lambda attn: TinyLM(),
    "attn-net": lambda attn: AttnNet(),
    "mha-net": lambda attn: MHANet(),
    "mlp": mlp,
    "mlp-f64": mlp,
}


def int8(model: nn.Module) -> nn.Module:
    quantized: nn.Module = torch.ao.quantization.quantize_dynamic(  # type: ignore[no-untyped-call]
        model, {nn.Linear}, dtype=torch.qint8
    )
    return quantized


@contextlib.contextmanager
def default_dtype(dtype: torch.dtype) -> Iterator[None]:
    before = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(before)


def build(name: str, attn: str = "sdpa") -> nn.Module:
    torch.manual_seed(0)
    if name == "mlp-f64":
        with default_dtype(torch.float64):
            return mlp(attn).eval()
    model: nn.Module = BUILD[name](attn).eval()
    if name == "distil-int8":
        model = int8(model)
    return model


# -- inputs and runs -------------------------------------------------------------------------------

DECODERS = ("qwen2", "gemma2", "phi3")
TOKENS = ("deberta", "electra", "distilbert", "distil-int8")
SPEECH = ("wav2vec2", "hubert")


def ids(b: int = 2, t: int = 12) -> torch.Tensor:
    return torch.randint(3, VOCAB, (b, t), generator=gen())


def types(b: int = 2, t: int = 12) -> torch.Tensor:
    return (torch.arange(t) >= t // 2).long().expand(b, t).clone()


def inputs(name: str, dtype: torch.dtype | None = None, memory: torch.memory_format | None = None) -> Any:
    """(args, kwargs) of one forward of ``name``; float inputs cast to ``dtype`` when given.

    Drawn as float32 explicitly: under set_default_dtype(float64) randn draws other numbers (a
    harness bug the first run had: envsnap rightly said the inputs already differed)."""
    dt = dtype or torch.float32
    if name in DECODERS or name == "tiny-lm":
        return (ids(),), {}
    if name in ("deberta", "electra"):
        return (), {"input_ids": ids(), "token_type_ids": types()}
    if name in ("distilbert", "distil-int8"):
        return (), {"input_ids": ids()}
    if name == "clip":
        pixels = torch.randn(2, 3, 32, 32, generator=gen(), dtype=torch.float32).to(dt)
        return (), {"input_ids": ids(2, 8), "pixel_values": pixels}
    if name in SPEECH:
        return (torch.randn(2, 400, generator=gen(), dtype=torch.float32).to(dt),), {}
    if name == "conv3d":
        x = torch.randn(2, 3, 4, 8, 8, generator=gen(), dtype=torch.float32).to(dt)
        return (x.contiguous(memory_format=memory) if memory else x,), {}
    if name in ("ckpt-mlp", "mha-net"):
        return (torch.randn(2, 6, 32, generator=gen(), dtype=torch.float32).to(dt),), {}
    if name == "attn-net":
        return (torch.randn(2, 6, 16, generator=gen(), dtype=torch.float32).to(dt),), {}
    if name == "mlp":
        return (torch.randn(4, 32, generator=gen(), dtype=torch.float32).to(dt),), {}
    if name == "mlp-f64":
        return (torch.randn(4, 32, generator=gen(), dtype=torch.float64),), {}
    raise KeyError(name)


def call(name: str, model: nn.Module, dtype: torch.dtype | None = None, **extra: Any) -> Any:
    args, kwargs = inputs(name, dtype, extra.pop("memory", None))
    return model(*args, **kwargs, **extra)


def forward(name: str, model: nn.Module, ctx: Any) -> Any:
    with torch.no_grad():
        return call(name, model)


def grad_forward(name: str, model: nn.Module, ctx: Any) -> Any:
    """A forward with grad enabled (nn.MultiheadAttention's slow path)."""
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


def f64_forward(name: str, model: nn.Module, ctx: Any) -> Any:
    """A target built and run under torch.set_default_dtype(torch.float64)."""
    with default_dtype(torch.float64), torch.no_grad():
        return call(name, model, dtype=torch.float64)


def channels_last_3d_forward(name: str, model: nn.Module, ctx: Any) -> Any:
    with torch.no_grad():
        return call(name, model, memory=torch.channels_last_3d)


def no_token_types(name: str, model: nn.Module, ctx: Any) -> Any:
    """A real bug: the target's pipeline drops token_type_ids."""
    with torch.no_grad():
        return model(input_ids=ids())


def loss_of(name: str, model: nn.Module) -> torch.Tensor:
    if name in DECODERS:
        x = ids(4, 12)
        return model(input_ids=x, labels=x).loss  # type: ignore[no-any-return]
    if name == "tiny-lm":
        x = ids(4, 12)
        logits = model(x)
        return nn.functional.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), x[:, 1:].reshape(-1))
    if name in SPEECH:
        return model(torch.randn(4, 400, generator=gen())).last_hidden_state.pow(2).mean()  # type: ignore[no-any-return]
    out = call(name, model)
    logits = out if isinstance(out, torch.Tensor) else out.logits
    return logits.float().pow(2).mean()


def train_step(name: str, model: nn.Module, ctx: Any) -> Any:
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=1e-1)
    loss = loss_of(name, model)
    loss.backward()  # type: ignore[no-untyped-call]
    opt.step()
    opt.zero_grad()
    return loss


def train_step_autocast(name: str, model: nn.Module, ctx: Any) -> Any:
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return train_step(name, model, ctx)


def train_then_eval(name: str, model: nn.Module, ctx: Any) -> Any:
    train_step(name, model, ctx)
    model.eval()
    with torch.no_grad():
        return call(name, model)


def greedy(name: str, model: nn.Module, ctx: Any, cache: str | None = None) -> Any:
    kwargs: dict[str, Any] = {"max_new_tokens": 6, "do_sample": False, "pad_token_id": 0}
    if cache:
        kwargs["cache_implementation"] = cache
    with torch.no_grad():
        out = untyped(model).generate(ids(2, 8), attention_mask=torch.ones(2, 8, dtype=torch.long), **kwargs)
    if ctx is not None:
        ctx.tap("sequences", out)
    return out


def greedy_static(name: str, model: nn.Module, ctx: Any) -> Any:
    return greedy(name, model, ctx, cache="static")


def clip_text_only(name: str, model: nn.Module, ctx: Any) -> Any:
    """One tower: get_text_features (the vision tower never runs)."""
    with torch.no_grad():
        return untyped(model).get_text_features(input_ids=ids(2, 8))


# -- wrappers (benign) and changes (real) ----------------------------------------------------------


class DDPLike(nn.Module):
    """DistributedDataParallel's shape: the model as `.module`, forward passed through."""

    def __init__(self, module: nn.Module) -> None:
        super().__init__()
        self.module = module

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)


def compiled(model: nn.Module) -> nn.Module:
    return torch.compile(model, backend="eager")  # type: ignore[return-value]


def halved(model: nn.Module) -> nn.Module:
    return model.half()


def to_channels_last_3d(model: nn.Module) -> nn.Module:
    return model.to(memory_format=torch.channels_last_3d)  # type: ignore[call-overload,no-any-return]


def at(model: nn.Module, path: str) -> nn.Module:
    return model.get_submodule(path) if path else model


def perturb(path: str, param: str = "weight", scale: float = 1e-3) -> Callable[[nn.Module], None]:
    def change(model: nn.Module) -> None:
        with torch.no_grad():
            tensor = getattr(at(model, path), param)
            tensor.add_(scale * torch.randn(tensor.shape, generator=gen(7)).to(tensor.dtype))

    return change


def set_attr(path: str, **values: Any) -> Callable[[nn.Module], None]:
    def change(model: nn.Module) -> None:
        for key, value in values.items():
            setattr(at(model, path), key, value)

    return change


def untyped(model: nn.Module) -> Any:
    """The model as Any: HF methods (generate, get_text_features) and attributes mypy can't see."""
    return model


def scale_weight(path: str, factor: float) -> Callable[[nn.Module], None]:
    def change(model: nn.Module) -> None:
        with torch.no_grad():
            untyped(at(model, path)).weight.mul_(factor)

    return change


def untie(model: nn.Module) -> None:
    """A real bug: the head gets its own copy of the embedding (no longer trained together)."""
    embed = model.get_submodule("embed")
    assert isinstance(embed, nn.Embedding)
    untyped(model).lm_head.weight = nn.Parameter(embed.weight.detach().clone())


def with_checkpoint(mode: str) -> Callable[[], nn.Module]:
    def make() -> nn.Module:
        model = seeded(lambda: CheckpointedMLP())
        model.mode = mode  # type: ignore[assignment]
        return model

    return make


def seeded(make: Callable[[], nn.Module]) -> nn.Module:
    """A target built like build() does: same seed, so the same weights."""
    torch.manual_seed(0)
    return make().eval()


def doubled() -> nn.Module:
    """The fp32 model's weights in float64 (a float64-default target of the same model)."""
    model = seeded(lambda: mlp("sdpa"))
    return model.double()


def quantized_with(change: Callable[[nn.Module], None]) -> nn.Module:
    model = seeded(lambda: distilbert("sdpa"))
    change(model)
    return int8(model)


# -- the cases (expectations written before the first run) -----------------------------------------


@dataclass
class Case:
    model: str
    feature: str
    change: str
    expect: str  # "pass" | "fail" | "refactor"
    where: str | None = None  # "|"-separated module-path fragments, any of which is right
    run: Run = forward
    verify_run: Run | None = None
    target_attn: str = "sdpa"
    mutate: Callable[[nn.Module], None] | None = None
    target_wrap: Callable[[nn.Module], nn.Module] | None = None
    build_target: Callable[[], nn.Module] | None = None


def cases() -> list[Case]:
    out: list[Case] = []
    add = out.append
    # Decoders with their own attention code: Qwen2 (GQA, linear RoPE scaling), Gemma2 (sliding
    # window, soft-capping), Phi3 (fused qkv_proj / gate_up_proj).
    for m in DECODERS:
        add(Case(m, "forward", "none", "pass"))
        add(Case(m, "forward", "threads 1 -> 2", "pass", verify_run=two_threads))
        if m != "gemma2":  # eager only
            add(Case(m, "forward", "sdpa -> eager", "pass", target_attn="eager"))
        add(Case(m, "forward", "autocast bf16 target", "pass", verify_run=autocast_forward))
        add(Case(m, "forward", "inference_mode target", "pass", verify_run=inference_forward))
        add(Case(m, "forward", "model.half() target", "pass", verify_run=half_forward, target_wrap=halved))
        add(Case(m, "forward", "DDP-style .module target", "pass", target_wrap=DDPLike))
        add(Case(m, "train step", "none", "pass", run=train_step))
        add(Case(m, "greedy generate (tap)", "none", "pass", run=greedy))
        add(Case(m, "greedy generate (tap)", "static cache both", "pass", run=greedy_static))
        add(
            Case(
                m,
                "greedy generate (tap)",
                "dynamic -> static cache",
                "pass",
                run=greedy,
                verify_run=greedy_static,
            )
        )
        add(
            Case(
                m,
                "greedy generate (tap)",
                "static cache, o_proj +1e-3 (layer 1)",
                "fail",
                "model.layers.1.self_attn.o_proj",
                run=greedy_static,
                mutate=perturb("model.layers.1.self_attn.o_proj"),
            )
        )
        add(
            Case(
                m,
                "forward",
                "input_layernorm weight +1e-3 (layer 1)",
                "fail",
                "model.layers.1.input_layernorm",
                mutate=perturb("model.layers.1.input_layernorm"),
            )
        )
    add(
        Case(
            "qwen2",
            "forward",
            "rope linear factor 2 -> 4",
            "fail",
            "model.rotary_emb",
            build_target=lambda: seeded(lambda: qwen2("sdpa", factor=4.0)),
        )
    )
    add(
        Case(
            "qwen2",
            "forward",
            "k_proj weight +1e-3 (GQA, layer 0)",
            "fail",
            "model.layers.0.self_attn.k_proj",
            mutate=perturb("model.layers.0.self_attn.k_proj"),
        )
    )
    add(
        Case(
            "qwen2",
            "forward",
            "untied -> tied lm_head (tie_word_embeddings)",
            "fail",
            "lm_head",
            build_target=lambda: seeded(lambda: qwen2("sdpa", tie=True)),
        )
    )
    add(
        Case(
            "gemma2",
            "forward",
            "sliding window 4 -> 8",
            "fail",
            "model.layers.0",
            build_target=lambda: seeded(lambda: gemma2("sdpa", window=8)),
        )
    )
    add(
        Case(
            "gemma2",
            "forward",
            "attn softcap 50 -> 30 (eager both)",
            "fail",
            "model.layers.0.self_attn",
            target_attn="eager",
            build_target=lambda: seeded(lambda: gemma2("eager", attn_cap=30.0)),
        )
    )
    add(
        Case(
            "gemma2",
            "forward",
            "final logit softcap 30 -> 20",
            "fail",
            "Gemma2ForCausalLM",
            build_target=lambda: seeded(lambda: gemma2("sdpa", final_cap=20.0)),
        )
    )
    add(
        Case(
            "phi3",
            "forward",
            "fused qkv_proj weight +1e-3 (layer 0)",
            "fail",
            "model.layers.0.self_attn.qkv_proj",
            mutate=perturb("model.layers.0.self_attn.qkv_proj"),
        )
    )
    add(
        Case(
            "phi3",
            "forward",
            "fused gate_up_proj weight +1e-3 (layer 1)",
            "fail",
            "model.layers.1.mlp.gate_up_proj",
            mutate=perturb("model.layers.1.mlp.gate_up_proj"),
        )
    )
    # Encoders with token_type_ids: DeBERTa-v2 (relative attention), ELECTRA.
    for m in ("deberta", "electra"):
        add(Case(m, "forward", "none", "pass"))
        add(Case(m, "forward", "threads 1 -> 2", "pass", verify_run=two_threads))
        add(Case(m, "forward", "autocast bf16 target", "pass", verify_run=autocast_forward))
        add(Case(m, "forward", "inference_mode target", "pass", verify_run=inference_forward))
        add(Case(m, "forward", "compile(eager) target", "pass", target_wrap=compiled))
        add(Case(m, "train step", "none", "pass", run=train_step))
        add(
            Case(
                m,
                "forward",
                "token_type_ids dropped by the target",
                "fail",
                "embeddings",
                verify_run=no_token_types,
            )
        )
    add(
        Case(
            "deberta",
            "forward",
            "token_type_embeddings +1e-3",
            "fail",
            "deberta.embeddings.token_type_embeddings",
            mutate=perturb("deberta.embeddings.token_type_embeddings"),
        )
    )
    add(
        Case(
            "deberta",
            "forward",
            "rel_embeddings +1e-3",
            "fail",
            "deberta.encoder.rel_embeddings",
            mutate=perturb("deberta.encoder.rel_embeddings"),
        )
    )
    add(
        Case(
            "electra",
            "forward",
            "embeddings_project weight +1e-3",
            "fail",
            "electra.embeddings_project",
            mutate=perturb("electra.embeddings_project"),
        )
    )
    # CLIP: two towers, logit scale on the root.
    add(Case("clip", "forward", "none", "pass"))
    add(Case("clip", "forward", "threads 1 -> 2", "pass", verify_run=two_threads))
    add(Case("clip", "forward", "sdpa -> eager", "pass", target_attn="eager"))
    add(Case("clip", "forward", "autocast bf16 target", "pass", verify_run=autocast_forward))
    add(Case("clip", "forward", "model.half() target", "pass", verify_run=half_forward, target_wrap=halved))
    add(Case("clip", "text features", "none", "pass", run=clip_text_only))
    add(
        Case(
            "clip",
            "forward",
            "logit_scale +0.1",
            "fail",
            "CLIPModel",
            mutate=perturb("", "logit_scale", scale=0.1),
        )
    )
    add(
        Case(
            "clip",
            "forward",
            "vision post_layernorm eps 1e-5 -> 1e-2",
            "fail",
            "vision_model.post_layernorm",
            mutate=set_attr("vision_model.post_layernorm", eps=1e-2),
        )
    )
    add(
        Case(
            "clip",
            "forward",
            "text_projection weight +1e-3",
            "fail",
            "text_projection",
            mutate=perturb("text_projection"),
        )
    )
    add(
        Case(
            "clip",
            "forward",
            "vision fc1 +1e-3 (layer 1)",
            "fail",
            "vision_model.encoder.layers.1.mlp.fc1",
            mutate=perturb("vision_model.encoder.layers.1.mlp.fc1"),
        )
    )
    # Speech: conv feature extractor with GroupNorm.
    for m in SPEECH:
        add(Case(m, "forward", "none", "pass"))
        add(Case(m, "forward", "threads 1 -> 2", "pass", verify_run=two_threads))
        add(Case(m, "forward", "autocast bf16 target", "pass", verify_run=autocast_forward))
        add(Case(m, "forward", "model.half() target", "pass", verify_run=half_forward, target_wrap=halved))
        add(Case(m, "train step", "none", "pass", run=train_step))
        add(
            Case(
                m,
                "forward",
                "group norm eps 1e-5 -> 1e-2",
                "fail",
                "feature_extractor.conv_layers.0.layer_norm",
                mutate=set_attr("feature_extractor.conv_layers.0.layer_norm", eps=1e-2),
            )
        )
        add(
            Case(
                m,
                "forward",
                "conv_layers.1 weight +1e-3",
                "fail",
                "feature_extractor.conv_layers.1.conv",
                mutate=perturb("feature_extractor.conv_layers.1.conv"),
            )
        )
    add(
        Case(
            "hubert",
            "forward",
            "feature_projection weight +1e-3",
            "fail",
            "feature_projection.projection",
            mutate=perturb("feature_projection.projection"),
        )
    )
    # DistilBERT, dynamic int8.
    add(Case("distil-int8", "forward", "none", "pass"))
    add(Case("distil-int8", "forward", "threads 1 -> 2", "pass", verify_run=two_threads))
    add(
        Case(
            "distil-int8",
            "forward",
            "ffn.lin1 +1e-2 (layer 1) before quantizing",
            "fail",
            "distilbert.transformer.layer.1.ffn.lin1",
            build_target=lambda: quantized_with(
                perturb("distilbert.transformer.layer.1.ffn.lin1", scale=1e-2)
            ),
        )
    )
    add(
        Case(
            "distilbert",
            "forward",
            "fp32 recorded -> int8 target",
            "fail",
            "distilbert.transformer.layer.0.attention",
            build_target=lambda: build("distil-int8"),
        )
    )
    # Conv3d, channels_last_3d.
    add(Case("conv3d", "forward", "none", "pass"))
    add(
        Case(
            "conv3d",
            "forward",
            "channels_last_3d model + input",
            "pass",
            verify_run=channels_last_3d_forward,
            target_wrap=to_channels_last_3d,
        )
    )
    add(Case("conv3d", "forward", "model.half() target", "pass", verify_run=half_forward, target_wrap=halved))
    add(Case("conv3d", "train step", "none", "pass", run=train_step))
    add(Case("conv3d", "train then eval", "none", "pass", run=train_then_eval))
    add(
        Case(
            "conv3d",
            "forward",
            "channels_last_3d, conv2 +1e-3",
            "fail",
            "conv2",
            verify_run=channels_last_3d_forward,
            target_wrap=to_channels_last_3d,
            mutate=perturb("conv2"),
        )
    )
    add(Case("conv3d", "forward", "bn1 eps -> 1e-2", "fail", "bn1", mutate=set_attr("bn1", eps=1e-2)))
    # Activation checkpointing.
    add(Case("ckpt-mlp", "train step", "none", "pass", run=train_step))
    for mode in ("reentrant", "non-reentrant"):
        add(
            Case(
                "ckpt-mlp",
                "train step",
                f"plain -> {mode} checkpoint target",
                "pass",
                run=train_step,
                build_target=with_checkpoint(mode),
            )
        )
        add(
            Case(
                "ckpt-mlp",
                "train step",
                f"{mode} checkpoint, blocks.1.up +1e-3",
                "fail",
                "blocks.1.up",
                run=train_step,
                build_target=with_checkpoint(mode),
                mutate=perturb("blocks.1.up"),
            )
        )
    # Weight tying.
    add(Case("tiny-lm", "train then eval", "none", "pass", run=train_then_eval))
    add(
        Case(
            "tiny-lm",
            "train then eval",
            "lm_head untied (a copy)",
            "fail",
            "lm_head|embed",
            run=train_then_eval,
            mutate=untie,
        )
    )
    add(
        Case(
            "tiny-lm",
            "train step",
            "lm_head untied (a copy)",
            "fail",
            "lm_head|embed",
            run=train_step,
            mutate=untie,
        )
    )
    # Fused vs split QKV.
    add(Case("attn-net", "forward", "none", "pass"))
    add(
        Case(
            "attn-net",
            "forward",
            "fused qkv -> split q/k/v (same weights)",
            "refactor",
            "attn",
            build_target=lambda: split_from_fused(build("attn-net")),  # type: ignore[arg-type]
        )
    )
    add(Case("attn-net", "forward", "fused qkv weight +1e-3", "fail", "attn.qkv", mutate=perturb("attn.qkv")))
    # nn.MultiheadAttention / TransformerEncoderLayer fast path (eval, no_grad) vs slow path.
    add(Case("mha-net", "forward", "none (fast path)", "pass"))
    add(Case("mha-net", "forward", "fast -> slow path (grad on)", "pass", verify_run=grad_forward))
    add(Case("mha-net", "forward", "slow -> fast path", "pass", run=grad_forward, verify_run=forward))
    add(Case("mha-net", "forward", "inference_mode target", "pass", verify_run=inference_forward))
    add(
        Case(
            "mha-net",
            "forward",
            "fast path, mha in_proj +1e-3",
            "fail",
            "mha",
            mutate=perturb("mha", "in_proj_weight"),
        )
    )
    add(
        Case(
            "mha-net",
            "forward",
            "fast path, layer linear1 +1e-3",
            "fail",
            "layer",
            mutate=perturb("layer.linear1"),
        )
    )
    # Default dtype float64.
    add(Case("mlp-f64", "forward", "none (float64 default both)", "pass", run=f64_forward))
    add(
        Case(
            "mlp",
            "forward",
            "fp32 recorded -> float64-default target",
            "pass",
            verify_run=f64_forward,
            build_target=doubled,
        )
    )
    add(
        Case(
            "mlp-f64",
            "forward",
            "float64 default, layer 3 weight +1e-6",
            "fail",
            "3",
            run=f64_forward,
            mutate=perturb("3", scale=1e-6),
        )
    )
    add(Case("mlp", "forward", "model.half() target", "pass", verify_run=half_forward, target_wrap=halved))
    add(
        Case(
            "mlp",
            "forward",
            "model.half() target, LayerNorm weight x1.05",
            "fail",
            "1",
            verify_run=half_forward,
            target_wrap=halved,
            mutate=scale_weight("1", 1.05),
        )
    )
    return out


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
    """Does the injected change change anything without envsnap (outputs, buffers, parameters)?"""
    reference = build(case.model)
    target = make_target(case)
    a = flat(case.run(case.model, reference, None))
    b = flat((case.verify_run or case.run)(case.model, target, None))
    a += flat([t for _, t in (*reference.named_buffers(), *reference.named_parameters())])
    b += flat([t for _, t in (*target.named_buffers(), *target.named_parameters())])
    if len(a) != len(b):
        return True
    return any(x.shape != y.shape or not torch.equal(x, y) for x, y in zip(a, b, strict=True))


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
    if case.expect == "pass" or (case.expect == "refactor" and report.verdict != "fail"):
        if report.verdict in ("pass", "pass-with-limitations"):
            return "ok", said + limits
        if report.verdict == "slow":
            return "SLOW-ALARM", said
        return "FALSE-ALARM", said + ("" if first is None else f" :: {first.summary[:400]}")
    if case.expect == "refactor":
        text = " ".join([*(report.reasons or []), first.summary if first else ""])
        named = case.where is not None and case.where in text
        return ("ok" if named else "UNCLEAR"), said + f" :: {text[:400]}"
    if report.verdict != "fail":
        return "MISS", said + f" {report.limitations[:2]}"
    places = case.where.split("|") if case.where else []
    if places and (first is None or not any(p in first.module for p in places)):
        return "WRONG-LAYER", said + f" (expected {case.where}) :: {first.summary[:400] if first else ''}"
    return "ok", said


def main() -> int:
    return run_cases(
        cases(),
        trial,
        lambda case: f"{case.model:11s} {case.feature:22s} {case.change}",
        width=80,
        detail_chars=300,
    )


if __name__ == "__main__":
    sys.exit(main())
