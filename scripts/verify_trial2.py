"""Blind trial, round 2, of envsnap.record / envsnap.verify on model families round 1 left out (#23).

Round 1 (scripts/hf_verify_trial.py) covered HF GPT-2, Llama, BERT, T5, ViT, Whisper and Mamba.
This round: CNNs with BatchNorm (HF ResNet, ConvNeXt), Swin, SegFormer (interpolating decode
head), ViT with interpolated position embeddings, an MoE decoder (Mixtral, Qwen2-MoE), BART/T5
beam search, LSTM/GRU models built in code, dynamic int8 quantization, TorchScript targets and
gradient accumulation. Random-init tiny configs (no downloads), CPU, one torch thread,
environment="none".

Each case's expectation is written in the case table *before* the trial ran:

  expect "pass": verdict pass / pass-with-limitations (anything else numeric is a FALSE ALARM;
                 a `slow` verdict alone is counted apart, as a timing alarm)
  expect "fail": verdict fail, and the first divergence's module path must contain `where`
                 (otherwise WRONG LAYER; `where=None`: any module, the change is in no module;
                 a pass is a MISS)
  any exception: CRASH (the traceback's last envsnap frame is printed)

A real change must be a change: each "fail" case first runs reference and target without envsnap
and compares what the block returns (and the model's buffers); an injected change with no effect
there is reported NO-EFFECT (a harness problem), not scored against envsnap.

Run: python scripts/verify_trial2.py [filter]   (needs transformers; not part of the test suite)
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


# -- models (random init, tiny) --------------------------------------------------------------------


def resnet(attn: str) -> Any:
    cfg = hf(
        "ResNetConfig",
        embedding_size=16,
        hidden_sizes=[16, 32],
        depths=[1, 1],
        layer_type="basic",
        num_labels=10,
    )
    return hf("ResNetForImageClassification", cfg)


def convnext(attn: str) -> Any:
    cfg = hf(
        "ConvNextConfig", hidden_sizes=[16, 32], depths=[1, 1], num_stages=2, num_labels=10, image_size=32
    )
    return hf("ConvNextForImageClassification", cfg)


def swin(attn: str) -> Any:
    cfg = hf(
        "SwinConfig",
        image_size=32,
        patch_size=4,
        embed_dim=16,
        depths=[1, 1],
        num_heads=[2, 2],
        window_size=4,
        num_labels=10,
    )
    return hf("SwinForImageClassification", cfg)


def segformer(attn: str) -> Any:
    cfg = hf(
        "SegformerConfig",
        num_encoder_blocks=2,
        depths=[1, 1],
        sr_ratios=[2, 1],
        hidden_sizes=[16, 32],
        patch_sizes=[7, 3],
        strides=[4, 2],
        num_attention_heads=[1, 2],
        mlp_ratios=[2, 2],
        decoder_hidden_size=32,
        num_labels=4,
    )
    return hf("SegformerForSemanticSegmentation", cfg)


def vit(attn: str) -> Any:
    cfg = hf(
        "ViTConfig",
        num_hidden_layers=2,
        hidden_size=64,
        intermediate_size=128,
        num_attention_heads=4,
        image_size=32,
        patch_size=8,
        num_labels=10,
        attn_implementation=attn,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
    )
    return hf("ViTForImageClassification", cfg)


def mixtral(attn: str, rope_theta: float = 10000.0) -> Any:
    cfg = hf(
        "MixtralConfig",
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        num_local_experts=4,
        num_experts_per_tok=2,
        vocab_size=VOCAB,
        max_position_embeddings=64,
        attn_implementation=attn,
        rope_parameters={"rope_type": "default", "rope_theta": rope_theta},
    )
    return hf("MixtralForCausalLM", cfg)


def qwen_moe(attn: str) -> Any:
    cfg = hf(
        "Qwen2MoeConfig",
        hidden_size=64,
        intermediate_size=128,
        moe_intermediate_size=32,
        shared_expert_intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        num_experts=4,
        num_experts_per_tok=2,
        vocab_size=VOCAB,
        max_position_embeddings=64,
        attn_implementation=attn,
    )
    return hf("Qwen2MoeForCausalLM", cfg)


def bart(attn: str) -> Any:
    cfg = hf(
        "BartConfig",
        vocab_size=VOCAB,
        d_model=64,
        encoder_layers=2,
        decoder_layers=2,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=128,
        decoder_ffn_dim=128,
        max_position_embeddings=64,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
        decoder_start_token_id=2,
        forced_eos_token_id=None,
        forced_bos_token_id=None,
        dropout=0.0,
        attention_dropout=0.0,
        attn_implementation=attn,
    )
    return hf("BartForConditionalGeneration", cfg)


def t5(attn: str) -> Any:
    cfg = hf(
        "T5Config",
        num_layers=2,
        num_decoder_layers=2,
        d_model=64,
        d_ff=128,
        num_heads=4,
        d_kv=16,
        vocab_size=VOCAB,
        dropout_rate=0.0,
        decoder_start_token_id=0,
        pad_token_id=0,
    )
    return hf("T5ForConditionalGeneration", cfg)


class LSTMTagger(nn.Module):
    """Embedding -> 2-layer LSTM -> Linear; with lengths, the LSTM runs on a PackedSequence."""

    def __init__(self, cell: str = "lstm") -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 32)
        rnn = nn.LSTM if cell == "lstm" else nn.GRU
        self.rnn = rnn(32, 48, num_layers=2, batch_first=True, bidirectional=cell == "gru")
        self.head = nn.Linear(48 * (2 if cell == "gru" else 1), 10)

    def forward(self, input_ids: torch.Tensor, lengths: torch.Tensor | None = None) -> torch.Tensor:
        x = self.embed(input_ids)
        if lengths is not None:
            packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
            packed_out, _ = self.rnn(packed)
            x, _ = nn.utils.rnn.pad_packed_sequence(packed_out, batch_first=True)
        else:
            x, _ = self.rnn(x)
        logits: torch.Tensor = self.head(x)
        return logits


def lstm(attn: str) -> nn.Module:
    return LSTMTagger("lstm")


def gru(attn: str) -> nn.Module:
    return LSTMTagger("gru")


class SmallCNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(16)
        self.fc = nn.Linear(16, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.bn1(self.conv1(x)))
        x = torch.relu(self.bn2(self.conv2(x)))
        out: torch.Tensor = self.fc(x.mean(dim=(2, 3)))
        return out


def cnn(attn: str) -> nn.Module:
    return SmallCNN()


def mlp(attn: str) -> nn.Module:
    return nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))


BUILD: dict[str, Callable[[str], Any]] = {
    "resnet": resnet,
    "convnext": convnext,
    "swin": swin,
    "segformer": segformer,
    "vit": vit,
    "mixtral": mixtral,
    "qwen-moe": qwen_moe,
    "bart": bart,
    "t5": t5,
    "lstm": lstm,
    "gru": gru,
    "cnn": cnn,
    "mlp": mlp,
    "mlp-int8": mlp,
}


def int8(model: nn.Module) -> nn.Module:
    quantized: nn.Module = torch.ao.quantization.quantize_dynamic(  # type: ignore[no-untyped-call]
        model, {nn.Linear}, dtype=torch.qint8
    )
    return quantized


def build(name: str, attn: str = "sdpa") -> nn.Module:
    torch.manual_seed(0)
    model: nn.Module = BUILD[name](attn).eval()
    if name == "mlp-int8":
        model = int8(model)
    return model


# -- inputs and runs -------------------------------------------------------------------------------

VISION = ("resnet", "convnext", "swin", "segformer", "vit", "cnn")
DECODERS = ("mixtral", "qwen-moe")


def ids(b: int = 2, t: int = 12) -> torch.Tensor:
    return torch.randint(3, VOCAB, (b, t), generator=gen())


def pixels(name: str, channels_last: bool = False, batch: int = 2) -> torch.Tensor:
    side = 48 if name == "vit" else 32  # ViT: 32x32 positions interpolated to 48x48
    x = torch.randn(batch, 3, side, side, generator=gen())
    return x.contiguous(memory_format=torch.channels_last) if channels_last else x


def call(name: str, model: nn.Module, channels_last: bool = False, **extra: Any) -> Any:
    if name in VISION:
        if name == "vit":
            extra["interpolate_pos_encoding"] = True
        return model(pixels(name, channels_last), **extra)
    if name in DECODERS:
        return model(input_ids=ids(), **extra)
    if name in ("bart", "t5"):
        return model(input_ids=ids(), decoder_input_ids=ids(2, 6), **extra)
    if name in ("lstm", "gru"):
        return model(ids(), **extra)
    if name in ("mlp", "mlp-int8"):
        return model(torch.randn(4, 32, generator=gen()))
    raise KeyError(name)


def forward(name: str, model: nn.Module, ctx: Any) -> Any:
    return call(name, model)


def channels_last_forward(name: str, model: nn.Module, ctx: Any) -> Any:
    return call(name, model, channels_last=True)


def two_threads(name: str, model: nn.Module, ctx: Any) -> Any:
    torch.set_num_threads(2)
    try:
        return call(name, model)
    finally:
        torch.set_num_threads(1)


def autocast_forward(name: str, model: nn.Module, ctx: Any) -> Any:
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return call(name, model)


def packed_forward(name: str, model: nn.Module, ctx: Any) -> Any:
    return model(ids(3, 10), lengths=torch.tensor([10, 6, 3]))


def loss_of(name: str, model: nn.Module, micro: slice = slice(None)) -> torch.Tensor:
    if name in VISION:
        x = pixels(name, batch=4)[micro]
        out = call_on(name, model, x)
        return out.float().pow(2).mean()
    x = ids(4, 12)[micro]
    if name in DECODERS:
        return model(input_ids=x, labels=x).loss  # type: ignore[no-any-return]
    if name in ("lstm", "gru"):
        return model(x).pow(2).mean()  # type: ignore[no-any-return]
    raise KeyError(name)


def call_on(name: str, model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    extra = {"interpolate_pos_encoding": True} if name == "vit" else {}
    out = model(x, **extra)
    return out if isinstance(out, torch.Tensor) else out.logits


def train_step(name: str, model: nn.Module, ctx: Any, lr: float = 1e-2) -> Any:
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    loss = loss_of(name, model)
    loss.backward()  # type: ignore[no-untyped-call]
    opt.step()
    opt.zero_grad()
    return loss


def train_step_lr2(name: str, model: nn.Module, ctx: Any) -> Any:
    return train_step(name, model, ctx, lr=2e-2)


def train_step_two_threads(name: str, model: nn.Module, ctx: Any) -> Any:
    torch.set_num_threads(2)
    try:
        return train_step(name, model, ctx)
    finally:
        torch.set_num_threads(1)


def train_step_autocast(name: str, model: nn.Module, ctx: Any) -> Any:
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return train_step(name, model, ctx)


def train_then_eval(name: str, model: nn.Module, ctx: Any) -> Any:
    """A train step (BatchNorm running stats updated), then an eval forward that uses them."""
    train_step(name, model, ctx)
    model.eval()
    with torch.no_grad():
        return call(name, model)


def grad_accum(name: str, model: nn.Module, ctx: Any) -> Any:
    """Two micro-batches, one optimizer step, all in one block."""
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=1e-2)
    total = 0.0
    for micro in (slice(0, 2), slice(2, 4)):
        loss = loss_of(name, model, micro) / 2
        loss.backward()  # type: ignore[no-untyped-call]
        total += float(loss)
    opt.step()
    opt.zero_grad()
    return torch.tensor(total)


def beam_generate(name: str, model: nn.Module, ctx: Any, length_penalty: float = 1.0) -> Any:
    out = model.generate(  # type: ignore[operator]
        input_ids=ids(2, 10),
        num_beams=4,
        max_new_tokens=8,
        do_sample=False,
        length_penalty=length_penalty,
        eos_token_id=6,  # a token the random model emits mid-way: beams of different lengths
        early_stopping=False,
    )
    if ctx is not None:
        ctx.tap("sequences", out.float())
    return out


def beam_generate_two_threads(name: str, model: nn.Module, ctx: Any) -> Any:
    torch.set_num_threads(2)
    try:
        return beam_generate(name, model, ctx)
    finally:
        torch.set_num_threads(1)


def beam_generate_lp(name: str, model: nn.Module, ctx: Any) -> Any:
    return beam_generate(name, model, ctx, length_penalty=-2.0)


def beam_generate_notap(name: str, model: nn.Module, ctx: Any) -> Any:
    return beam_generate(name, model, None)


def beam_generate_notap_lp(name: str, model: nn.Module, ctx: Any) -> Any:
    return beam_generate(name, model, None, length_penalty=-2.0)


# -- wrappers (benign) and changes (real) ----------------------------------------------------------


class DDPLike(nn.Module):
    """A DistributedDataParallel-style wrapper: the model is `.module`."""

    def __init__(self, module: nn.Module) -> None:
        super().__init__()
        self.module = module

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)


def compiled(model: nn.Module) -> nn.Module:
    return torch.compile(model, backend="eager")  # type: ignore[return-value]


def scripted(model: nn.Module) -> nn.Module:
    scripted: nn.Module = torch.jit.script(model)
    return scripted


def traced(model: nn.Module) -> nn.Module:
    traced: nn.Module = torch.jit.trace(model, (pixels("cnn"),))  # type: ignore[no-untyped-call]
    return traced


def to_channels_last(model: nn.Module) -> None:
    model.to(memory_format=torch.channels_last)  # type: ignore[call-overload]


def at(model: nn.Module, path: str) -> nn.Module:
    found: nn.Module = dict(model.named_modules())[path]
    return found


def perturb(path: str, param: str = "weight", scale: float = 1e-3) -> Callable[[nn.Module], None]:
    def change(model: nn.Module) -> None:
        with torch.no_grad():
            w = getattr(at(model, path), param)
            w.add_(scale * torch.randn(w.shape, generator=gen(7)))

    return change


def set_attr(path: str, **values: Any) -> Callable[[nn.Module], None]:
    def change(model: nn.Module) -> None:
        for key, value in values.items():
            setattr(at(model, path), key, value)

    return change


@contextlib.contextmanager
def interpolate_with(**override: Any) -> Iterator[None]:
    original = nn.functional.interpolate

    def patched(*args: Any, **kwargs: Any) -> Any:
        kwargs.update(override)
        return original(*args, **kwargs)

    nn.functional.interpolate = patched
    try:
        yield
    finally:
        nn.functional.interpolate = original


def interpolation(path: str, **override: Any) -> Callable[[nn.Module], None]:
    """The module's own code calls F.interpolate with another mode / align_corners."""

    def change(model: nn.Module) -> None:
        module = at(model, path)
        original = module.forward

        def forward(*args: Any, **kwargs: Any) -> Any:
            with interpolate_with(**override):
                return original(*args, **kwargs)

        module.forward = forward

    return change


def top_k_one(path: str) -> Callable[[nn.Module], None]:
    return set_attr(path, top_k=1)


RESNET_CONV = "resnet.encoder.stages.1.layers.0.layer.0.convolution"
RESNET_BN = "resnet.encoder.stages.1.layers.0.layer.0.normalization"
VIT_EMB = "vit.embeddings"


# -- the cases (expectations written before the first run) -----------------------------------------


@dataclass
class Case:
    model: str
    feature: str
    change: str
    expect: str  # "pass" | "fail"
    where: str | None = None
    run: Run = forward
    verify_run: Run | None = None
    target_attn: str = "sdpa"
    mutate: Callable[[nn.Module], None] | None = None
    wrap: Callable[[nn.Module], nn.Module] | None = None
    target_wrap: Callable[[nn.Module], nn.Module] | None = None
    build_target: Callable[[], nn.Module] | None = None


def cases() -> list[Case]:
    out: list[Case] = []
    add = out.append
    # CNNs with BatchNorm: eval, and a training step in train mode.
    for m in ("resnet", "convnext", "cnn"):
        add(Case(m, "eval forward", "none", "pass"))
        add(Case(m, "eval forward", "threads 1 -> 2", "pass", verify_run=two_threads))
        add(
            Case(
                m,
                "eval forward",
                "channels_last target",
                "pass",
                verify_run=channels_last_forward,
                mutate=to_channels_last,
            )
        )
        add(Case(m, "eval forward", "compile(eager) target", "pass", target_wrap=compiled))
        add(Case(m, "eval forward", "DDP-style .module target", "pass", target_wrap=DDPLike))
        add(Case(m, "eval forward", "autocast bf16 target", "pass", verify_run=autocast_forward))
        add(Case(m, "train step", "none", "pass", run=train_step))
        add(Case(m, "grad accum x2", "none", "pass", run=grad_accum))
    add(
        Case(
            "resnet",
            "eval forward",
            "DDP-style recorded, bare target",
            "pass",
            wrap=DDPLike,
            target_wrap=lambda m: m,
        )
    )
    add(
        Case(
            "resnet",
            "eval forward",
            "BN eps 1e-5 -> 1e-3",
            "fail",
            RESNET_BN,
            mutate=set_attr(RESNET_BN, eps=1e-3),
        )
    )
    add(
        Case(
            "resnet",
            "eval forward",
            "conv dilation 1 -> 2",
            "fail",
            RESNET_CONV,
            mutate=set_attr(RESNET_CONV, dilation=(2, 2), padding=(2, 2)),
        )
    )
    add(
        Case(
            "resnet",
            "eval forward",
            "conv padding 1 -> 2",
            "fail",
            RESNET_CONV,
            mutate=set_attr(RESNET_CONV, padding=(2, 2)),
        )
    )
    add(Case("resnet", "eval forward", "conv weight +1e-3", "fail", RESNET_CONV, mutate=perturb(RESNET_CONV)))
    add(
        Case(
            "resnet",
            "train step",
            "conv weight +1e-3",
            "fail",
            RESNET_CONV,
            run=train_step,
            mutate=perturb(RESNET_CONV),
        )
    )
    add(
        Case(
            "resnet",
            "train step",
            "BN eps 1e-5 -> 1e-3",
            "fail",
            RESNET_BN,
            run=train_step,
            mutate=set_attr(RESNET_BN, eps=1e-3),
        )
    )
    add(Case("resnet", "train then eval", "none", "pass", run=train_then_eval))
    add(
        Case(
            "resnet",
            "train then eval",
            "BN momentum 0.1 -> 0.5",
            "fail",
            RESNET_BN,
            run=train_then_eval,
            mutate=set_attr(RESNET_BN, momentum=0.5),
        )
    )
    add(
        Case(
            "resnet",
            "train step",
            "BN momentum 0.1 -> 0.5",
            "fail",
            RESNET_BN,
            run=train_step,
            mutate=set_attr(RESNET_BN, momentum=0.5),
        )
    )
    add(
        Case(
            "resnet",
            "grad accum x2",
            "conv weight +1e-3",
            "fail",
            RESNET_CONV,
            run=grad_accum,
            mutate=perturb(RESNET_CONV),
        )
    )
    add(
        Case(
            "resnet",
            "autocast bf16 target",
            "BN eps 1e-5 -> 1e-1",
            "fail",
            RESNET_BN,
            verify_run=autocast_forward,
            mutate=set_attr(RESNET_BN, eps=1e-1),
        )
    )
    cn = "convnext.encoder.stages.1.layers.0"
    add(
        Case(
            "convnext",
            "eval forward",
            "dwconv weight +1e-3",
            "fail",
            cn + ".dwconv",
            mutate=perturb(cn + ".dwconv"),
        )
    )
    add(
        Case(
            "convnext",
            "eval forward",
            "LayerNorm eps 1e-6 -> 1e-2",
            "fail",
            cn + ".layernorm",
            mutate=set_attr(cn + ".layernorm", eps=1e-2),
        )
    )
    add(
        Case(
            "convnext",
            "eval forward",
            "dwconv padding 3 -> 2 (kernel 7)",
            "fail",
            cn + ".dwconv",
            mutate=set_attr(cn + ".dwconv", padding=(2, 2)),
        )
    )
    # Added after the first run (expectation written before running it): the HF padding changes
    # break the models' residual adds; a CNN without residuals takes the new shape.
    add(
        Case(
            "cnn",
            "eval forward",
            "conv2 padding 1 -> 2",
            "fail",
            "conv2",
            mutate=set_attr("conv2", padding=(2, 2)),
        )
    )
    add(Case("cnn", "eval forward", "bn2 eps 1e-5 -> 1e-3", "fail", "bn2", mutate=set_attr("bn2", eps=1e-3)))
    add(
        Case(
            "cnn",
            "train then eval",
            "bn1 momentum 0.1 -> 0.5",
            "fail",
            "bn1",
            run=train_then_eval,
            mutate=set_attr("bn1", momentum=0.5),
        )
    )
    # Round 2 (expectations written before running them): the state a training step leaves.
    add(
        Case(
            "cnn",
            "train step",
            "SGD lr 1e-2 -> 2e-2",
            "fail",
            "conv1",
            run=train_step,
            verify_run=train_step_lr2,
        )
    )
    add(
        Case("cnn", "train step", "threads 1 -> 2", "pass", run=train_step, verify_run=train_step_two_threads)
    )
    add(
        Case(
            "cnn",
            "train step",
            "autocast bf16 target",
            "pass",
            run=train_step,
            verify_run=train_step_autocast,
        )
    )
    add(
        Case(
            "mixtral",
            "train step",
            "threads 1 -> 2",
            "pass",
            run=train_step,
            verify_run=train_step_two_threads,
        )
    )
    add(
        Case(
            "mixtral",
            "train step",
            "autocast bf16 target",
            "pass",
            run=train_step,
            verify_run=train_step_autocast,
        )
    )
    add(
        Case(
            "resnet",
            "train step",
            "autocast bf16 target",
            "pass",
            run=train_step,
            verify_run=train_step_autocast,
        )
    )
    # Swin (windowed attention, relative position bias) and SegFormer (interpolating decode head).
    sw = "swin.encoder.layers.1.blocks.0"
    add(Case("swin", "eval forward", "none", "pass"))
    add(Case("swin", "eval forward", "threads 1 -> 2", "pass", verify_run=two_threads))
    add(Case("swin", "eval forward", "channels_last input", "pass", verify_run=channels_last_forward))
    add(
        Case(
            "swin",
            "eval forward",
            "fc1 weight +1e-3",
            "fail",
            sw + ".mlp.fc1",
            mutate=perturb(sw + ".mlp.fc1"),
        )
    )
    add(
        Case(
            "swin",
            "eval forward",
            "rel. position bias table +1e-2",
            "fail",
            sw + ".attention",
            mutate=perturb(sw + ".attention.relative_position_bias", "relative_position_bias_table", 1e-2),
        )
    )
    add(Case("segformer", "eval forward", "none", "pass"))
    add(Case("segformer", "eval forward", "threads 1 -> 2", "pass", verify_run=two_threads))
    add(
        Case(
            "segformer",
            "eval forward",
            "channels_last target",
            "pass",
            verify_run=channels_last_forward,
            mutate=to_channels_last,
        )
    )
    add(
        Case(
            "segformer",
            "eval forward",
            "align_corners False -> True",
            "fail",
            "decode_head",
            mutate=interpolation("decode_head", align_corners=True),
        )
    )
    add(
        Case(
            "segformer",
            "eval forward",
            "bilinear -> nearest",
            "fail",
            "decode_head",
            mutate=interpolation("decode_head", mode="nearest", align_corners=None),
        )
    )
    add(
        Case(
            "segformer",
            "eval forward",
            "decode BN eps 1e-5 -> 1e-3",
            "fail",
            "decode_head.batch_norm",
            mutate=set_attr("decode_head.batch_norm", eps=1e-3),
        )
    )
    add(Case("segformer", "train then eval", "none", "pass", run=train_then_eval))
    add(
        Case(
            "segformer",
            "train then eval",
            "decode BN momentum 0.1 -> 0.5",
            "fail",
            "decode_head.batch_norm",
            run=train_then_eval,
            mutate=set_attr("decode_head.batch_norm", momentum=0.5),
        )
    )
    # ViT at 48x48 on 32x32 position embeddings: interpolated (bicubic) in the embeddings' own code.
    add(Case("vit", "interp pos-emb", "none", "pass"))
    add(Case("vit", "interp pos-emb", "channels_last input", "pass", verify_run=channels_last_forward))
    add(Case("vit", "interp pos-emb", "sdpa -> eager", "pass", target_attn="eager"))
    add(Case("vit", "interp pos-emb", "autocast bf16 target", "pass", verify_run=autocast_forward))
    add(Case("vit", "interp pos-emb", "compile(eager) target", "pass", target_wrap=compiled))
    add(
        Case(
            "vit",
            "interp pos-emb",
            "bicubic -> bilinear",
            "fail",
            VIT_EMB,
            mutate=interpolation(VIT_EMB, mode="bilinear"),
        )
    )
    add(
        Case(
            "vit",
            "interp pos-emb",
            "align_corners False -> True",
            "fail",
            VIT_EMB,
            mutate=interpolation(VIT_EMB, align_corners=True),
        )
    )
    add(Case("vit", "interp pos-emb train step", "none", "pass", run=train_step))
    # MoE decoders: router top-k, experts, rotary base.
    for m, mlp_path in (("mixtral", "model.layers.1.mlp"), ("qwen-moe", "model.layers.1.mlp")):
        add(Case(m, "forward", "none", "pass"))
        add(Case(m, "forward", "threads 1 -> 2", "pass", verify_run=two_threads))
        add(Case(m, "forward", "sdpa -> eager", "pass", target_attn="eager"))
        add(Case(m, "forward", "autocast bf16 target", "pass", verify_run=autocast_forward))
        add(Case(m, "forward", "compile(eager) target", "pass", target_wrap=compiled))
        add(Case(m, "forward", "DDP-style .module target", "pass", target_wrap=DDPLike))
        add(
            Case(
                m,
                "forward",
                "router top-k 2 -> 1",
                "fail",
                mlp_path + ".gate",
                mutate=top_k_one(mlp_path + ".gate"),
            )
        )
        add(
            Case(
                m,
                "forward",
                "expert weights +1e-3",
                "fail",
                mlp_path + ".experts",
                mutate=perturb(mlp_path + ".experts", "gate_up_proj"),
            )
        )
        add(Case(m, "train step", "none", "pass", run=train_step))
        add(Case(m, "grad accum x2", "none", "pass", run=grad_accum))
        add(
            Case(
                m,
                "grad accum x2",
                "router top-k 2 -> 1",
                "fail",
                mlp_path + ".gate",
                run=grad_accum,
                mutate=top_k_one(mlp_path + ".gate"),
            )
        )
    add(
        Case(
            "mixtral",
            "forward",
            "rotary base 1e4 -> 2e4",
            "fail",
            "rotary_emb",
            build_target=lambda: seeded(lambda: mixtral("sdpa", rope_theta=20000.0)),
        )
    )
    add(
        Case(
            "qwen-moe",
            "forward",
            "shared expert +1e-3",
            "fail",
            "model.layers.1.mlp.shared_expert",
            mutate=perturb("model.layers.1.mlp.shared_expert.up_proj"),
        )
    )
    # Encoder-decoder beam search.
    for m in ("bart", "t5"):
        add(Case(m, "forward", "none", "pass"))
        add(Case(m, "beam generate (tap)", "none", "pass", run=beam_generate))
        add(
            Case(
                m,
                "beam generate (tap)",
                "threads 1 -> 2",
                "pass",
                run=beam_generate,
                verify_run=beam_generate_two_threads,
            )
        )
        add(
            Case(
                m,
                "beam generate (tap)",
                "length_penalty 1 -> -2",
                "fail",
                None,
                run=beam_generate,
                verify_run=beam_generate_lp,
            )
        )
        add(
            Case(
                m,
                "beam generate",
                "length_penalty 1 -> -2",
                "fail",
                None,
                run=beam_generate_notap,
                verify_run=beam_generate_notap_lp,
            )
        )
    add(Case("bart", "forward", "sdpa -> eager", "pass", target_attn="eager"))
    add(Case("bart", "beam generate (tap)", "sdpa -> eager", "pass", run=beam_generate, target_attn="eager"))
    add(
        Case(
            "bart",
            "beam generate (tap)",
            "fc1 weight +1e-3 (enc layer 1)",
            "fail",
            "model.encoder.layers.1.fc1",
            run=beam_generate,
            mutate=perturb("model.encoder.layers.1.fc1"),
        )
    )
    add(
        Case(
            "t5",
            "beam generate (tap)",
            "wo weight +1e-3 (enc block 1)",
            "fail",
            "encoder.block.1.layer.1.DenseReluDense.wo",
            run=beam_generate,
            mutate=perturb("encoder.block.1.layer.1.DenseReluDense.wo"),
        )
    )
    # LSTM / GRU built in code.
    for m in ("lstm", "gru"):
        add(Case(m, "forward", "none", "pass"))
        add(Case(m, "forward", "threads 1 -> 2", "pass", verify_run=two_threads))
        add(Case(m, "forward", "compile(eager) target", "pass", target_wrap=compiled))
        add(
            Case(m, "forward", "rnn weight_hh_l1 +1e-3", "fail", "rnn", mutate=perturb("rnn", "weight_hh_l1"))
        )
        add(Case(m, "packed sequence", "none", "pass", run=packed_forward))
        add(
            Case(
                m,
                "packed sequence",
                "rnn weight_ih_l0 +1e-3",
                "fail",
                "rnn",
                run=packed_forward,
                mutate=perturb("rnn", "weight_ih_l0"),
            )
        )
        add(Case(m, "train step", "none", "pass", run=train_step))
        add(Case(m, "grad accum x2", "none", "pass", run=grad_accum))
        add(
            Case(
                m,
                "grad accum x2",
                "head weight +1e-3",
                "fail",
                "head",
                run=grad_accum,
                mutate=perturb("head"),
            )
        )
    # Dynamic int8 quantization (quantize_dynamic on Linear).
    add(Case("mlp-int8", "forward", "none", "pass"))
    add(Case("mlp-int8", "forward", "threads 1 -> 2", "pass", verify_run=two_threads))
    add(
        Case(
            "mlp-int8",
            "forward",
            "layer 2 weight +1e-2 before quantizing",
            "fail",
            "2",
            build_target=lambda: quantized_with(perturb("2", scale=1e-2)),
        )
    )
    add(
        Case(
            "mlp",
            "forward",
            "fp32 recorded -> int8 dynamic target",
            "fail",
            "0",
            build_target=lambda: build("mlp-int8"),
        )
    )
    # TorchScript targets.
    add(Case("cnn", "eval forward", "torch.jit.script target", "pass", target_wrap=scripted))
    add(Case("cnn", "eval forward", "torch.jit.trace target", "pass", target_wrap=traced))
    add(Case("cnn", "eval forward", "scripted, recorded and target", "pass", wrap=scripted))
    add(
        Case(
            "cnn",
            "eval forward",
            "jit.script target, conv2 +1e-3",
            "fail",
            None,
            target_wrap=scripted,
            mutate=perturb("conv2"),
        )
    )
    add(
        Case(
            "cnn",
            "eval forward",
            "jit.trace target, bn2 eps -> 1e-3",
            "fail",
            None,
            target_wrap=traced,
            mutate=set_attr("bn2", eps=1e-3),
        )
    )
    return out


def seeded(make: Callable[[], nn.Module]) -> nn.Module:
    """A target built like build() does: same seed, so the same weights."""
    torch.manual_seed(0)
    return make().eval()


def quantized_with(change: Callable[[nn.Module], None]) -> nn.Module:
    torch.manual_seed(0)
    model = mlp("sdpa").eval()
    change(model)
    return int8(model)


# -- running and scoring ---------------------------------------------------------------------------


def make_target(case: Case) -> nn.Module:
    target = case.build_target() if case.build_target else build(case.model, case.target_attn)
    if case.mutate:
        case.mutate(target)
    wrap = case.target_wrap or case.wrap
    return wrap(target) if wrap else target


def flat(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value.detach().float()]
    if isinstance(value, dict):
        return [t for v in value.values() for t in flat(v)]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in flat(v)]
    return []


def has_effect(case: Case) -> bool:
    """Does the injected change change anything without envsnap (outputs, buffers, parameters)?"""
    reference = build(case.model)
    if case.wrap:
        reference = case.wrap(reference)
    target = make_target(case)
    a = flat(case.run(case.model, reference, None))
    b = flat((case.verify_run or case.run)(case.model, target, None))
    if case.run is not forward and case.verify_run is None:  # generate's tokens hide logits
        a += flat(call(case.model, build(case.model) if not case.wrap else case.wrap(build(case.model))))
        b += flat(call(case.model, make_target(case)))
    a += flat([t for _, t in (*reference.named_buffers(), *reference.named_parameters())])
    b += flat([t for _, t in (*target.named_buffers(), *target.named_parameters())])
    if len(a) != len(b):
        return True
    return any(x.shape != y.shape or not torch.equal(x, y) for x, y in zip(a, b, strict=True))


class Tapless:
    def tap(self, name: str, value: Any) -> None:
        pass


def trial(case: Case, bundle: Path) -> tuple[str, str]:
    if case.expect == "fail":
        try:
            effect = has_effect(case)
        except Exception as exc:  # the change breaks the model itself (a residual add's shapes)
            return "TARGET-RAISES", f"without envsnap: {type(exc).__name__}: {str(exc)[:120]} (harness)"
        if not effect:
            return "NO-EFFECT", "the injected change changed nothing (harness)"
    reference = build(case.model)
    recorded = case.wrap(reference) if case.wrap else reference
    with envsnap.record(bundle, model=recorded, environment="none") as rec:
        case.run(case.model, recorded, rec)
    target = make_target(case)
    with envsnap.verify(bundle, model=target, environment="none") as v:
        (case.verify_run or case.run)(case.model, target, v)
    report = v.report
    first = report.first_divergence
    said = f"{report.verdict}"
    if first is not None:
        said += f" @ {first.module}"
    elif report.reasons:
        said += f" ({report.reasons[0][:200]})"
    if case.expect == "pass":
        if report.verdict in ("pass", "pass-with-limitations"):
            return "ok", said + (f" [{report.limitations[0][:160]}]" if report.limitations else "")
        if report.verdict == "slow":
            return "SLOW-ALARM", said
        return "FALSE-ALARM", said + ("" if first is None else f" :: {first.summary[:400]}")
    if report.verdict != "fail":
        return "MISS", said + f" {report.limitations[:2]}"
    if case.where is not None and (first is None or case.where not in first.module):
        return "WRONG-LAYER", said + f" (expected {case.where}) :: {first.summary[:400] if first else ''}"
    return "ok", said


def main() -> int:
    return run_cases(
        cases(),
        trial,
        lambda case: f"{case.model:9s} {case.feature:22s} {case.change}",
        width=78,
        detail_chars=300,
    )


if __name__ == "__main__":
    sys.exit(main())
