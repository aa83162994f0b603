"""Blind trial, round 4, of envsnap.record / envsnap.verify on code paths rounds 1-3 left out (#23).

Round 1 (scripts/hf_verify_trial.py): GPT-2, Llama, BERT, T5, ViT, Whisper, Mamba. Round 2
(scripts/verify_trial2.py): CNNs with BatchNorm, Swin, SegFormer, Mixtral/Qwen2-MoE, BART/T5 beam
search, LSTM/GRU, int8, TorchScript. Round 3 (scripts/verify_trial3.py): Qwen2, Gemma2, Phi3,
DeBERTa-v2, ELECTRA, CLIP, Wav2Vec2/HuBERT, DistilBERT int8, static caches, checkpointing, tying.
This round: HF Falcon and GPT-NeoX (parallel attention + MLP, fused query_key_value, partial
rotary), BLOOM (ALiBi, embedding LayerNorm, left padding), Mistral (sliding window, generate),
OLMoE (a top-k router over fused 3-D expert weights, under casts), MarianMT (encoder-decoder,
greedy generate with a cross-attention cache, padding), Dinov2 (LayerScale, drop path in eval and
train); built in code: a hand-written LoRA adapter (zero-B wrapper, merged into the base, train
step with only adapters trainable), weight_norm / spectral_norm parametrizations (their
parametrization modules run as calls), torch.func.functional_call, nn.RNN on a PackedSequence,
an EMA copy (AveragedModel) updated in the block, gradient accumulation over 2 micro-batches.
Random-init tiny configs (no downloads), CPU, one torch thread, environment="none".

Each case's expectation is written in the case table *before* the trial ran:

  expect "pass":     verdict pass / pass-with-limitations (anything else numeric: FALSE ALARM;
                     `slow` alone is counted apart, as a timing alarm)
  expect "fail":     verdict fail, and the first divergence's module path must contain one of
                     `where` ("|"-separated; otherwise WRONG LAYER; None: any module); a pass is a MISS
  any exception: CRASH (the traceback's last envsnap frame is printed)

A real change must be a change: each "fail" case first runs reference and target without envsnap;
an injected change with no effect there is NO-EFFECT, one that makes the model raise is
TARGET-RAISES (harness problems, not scored).

Run: python scripts/verify_trial4.py [filter]   (needs transformers; not part of the test suite)
"""

from __future__ import annotations

import copy
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import torch.func
from torch import nn
from torch.nn.utils import parametrizations
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
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


# -- HF models (random init, tiny) -----------------------------------------------------------------


def falcon(attn: str) -> Any:
    cfg = hf(
        "FalconConfig",
        vocab_size=VOCAB,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        new_decoder_architecture=False,
        multi_query=True,
        parallel_attn=True,
        alibi=False,
        bias=False,
        max_position_embeddings=64,
        attn_implementation=attn,
        **TOKENS,
    )
    return hf("FalconForCausalLM", cfg)


def neox(attn: str) -> Any:
    cfg = hf(
        "GPTNeoXConfig",
        vocab_size=VOCAB,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=128,
        use_parallel_residual=True,
        max_position_embeddings=64,
        attn_implementation=attn,
        **TOKENS,
    )
    return hf("GPTNeoXForCausalLM", cfg)


def bloom(attn: str) -> Any:
    cfg = hf("BloomConfig", vocab_size=VOCAB, hidden_size=64, n_layer=2, n_head=4, **TOKENS)
    return hf("BloomForCausalLM", cfg)  # eager only (no sdpa path in HF)


def mistral(attn: str, window: int = 4) -> Any:
    cfg = hf(
        "MistralConfig",
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        sliding_window=window,
        attn_implementation=attn,
        **TOKENS,
    )
    return hf("MistralForCausalLM", cfg)


def neox_partial(factor: float) -> Any:
    cfg = hf(
        "GPTNeoXConfig",
        vocab_size=VOCAB,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=128,
        use_parallel_residual=True,
        max_position_embeddings=64,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": factor},
        attn_implementation="sdpa",
        **TOKENS,
    )
    return hf("GPTNeoXForCausalLM", cfg)


def olmoe(attn: str) -> Any:
    cfg = hf(
        "OlmoeConfig",
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        num_experts=4,
        num_experts_per_tok=2,
        max_position_embeddings=64,
        attn_implementation=attn,
        **TOKENS,
    )
    return hf("OlmoeForCausalLM", cfg)


def marian(attn: str) -> Any:
    cfg = hf(
        "MarianConfig",
        vocab_size=VOCAB,
        d_model=32,
        encoder_layers=2,
        decoder_layers=2,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        max_position_embeddings=64,
        pad_token_id=0,
        eos_token_id=2,
        decoder_start_token_id=0,
        dropout=0.0,
        attention_dropout=0.0,
        activation_dropout=0.0,
        attn_implementation=attn,
    )
    return hf("MarianMTModel", cfg)


def dinov2(attn: str) -> Any:
    cfg = hf(
        "Dinov2Config",
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        mlp_ratio=2,
        image_size=32,
        patch_size=8,
        drop_path_rate=0.1,
        attn_implementation=attn,
    )
    return hf("Dinov2Model", cfg)


# -- models built in code --------------------------------------------------------------------------


class LoRALinear(nn.Module):
    """A hand-written low-rank adapter around an nn.Linear (peft's shape: base, lora_A, lora_B)."""

    def __init__(self, base: nn.Linear, rank: int = 4, alpha: float = 8.0, zero_b: bool = True) -> None:
        super().__init__()
        self.base = base
        self.lora_A = nn.Linear(base.in_features, rank, bias=False)
        self.lora_B = nn.Linear(rank, base.out_features, bias=False)
        self.scaling = alpha / rank
        with torch.no_grad():
            self.lora_A.weight.copy_(torch.randn(self.lora_A.weight.shape, generator=gen(11)) * 0.1)
            if zero_b:
                self.lora_B.weight.zero_()
            else:
                self.lora_B.weight.copy_(torch.randn(self.lora_B.weight.shape, generator=gen(12)) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.base(x) + self.lora_B(self.lora_A(x)) * self.scaling
        return out

    def merged(self) -> nn.Linear:
        """The base Linear with B·A·scaling folded into its weight (peft's merge_and_unload)."""
        lin = copy.deepcopy(self.base)
        with torch.no_grad():
            lin.weight.add_(self.lora_B.weight @ self.lora_A.weight * self.scaling)
        return lin


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(32)
        self.up: nn.Module = nn.Linear(32, 64)
        self.down: nn.Module = nn.Linear(64, 32)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))
        return out


class ResMLP(nn.Module):
    """embed -> 2 residual blocks -> head; the base for LoRA, parametrizations, functional_call."""

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


def with_lora(model: nn.Module, zero_b: bool = True, alpha: float = 8.0) -> nn.Module:
    """Adapters on every block's `up` and `down` (random A; B zero or random)."""
    for block in untyped(model).blocks:
        block.up = LoRALinear(block.up, zero_b=zero_b, alpha=alpha)
        block.down = LoRALinear(block.down, zero_b=zero_b, alpha=alpha)
    return model


def lora_model() -> nn.Module:
    torch.manual_seed(0)
    return with_lora(ResMLP(), zero_b=False).eval()


def merged(model: nn.Module) -> nn.Module:
    for block in untyped(model).blocks:
        block.up = block.up.merged()
        block.down = block.down.merged()
    return model


def weight_normed(model: nn.Module) -> nn.Module:
    """weight_norm parametrizations on every block's `up` and on the head (same effective weight)."""
    for block in untyped(model).blocks:
        parametrizations.weight_norm(block.up)
    parametrizations.weight_norm(untyped(model).head)
    return model


def spectral_normed(model: nn.Module, iterations: int = 1) -> nn.Module:
    for block in untyped(model).blocks:
        parametrizations.spectral_norm(block.up, n_power_iterations=iterations)
    return model


class RNNNet(nn.Module):
    """nn.RNN (tanh, 2 layers) over a PackedSequence of variable-length sequences."""

    def __init__(self, nonlinearity: str = "tanh") -> None:
        super().__init__()
        self.embed = nn.Linear(8, 16)
        self.rnn = nn.RNN(16, 16, num_layers=2, nonlinearity=nonlinearity, batch_first=True)
        self.head = nn.Linear(16, 3)

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        packed = pack_padded_sequence(self.embed(x), lengths, batch_first=True, enforce_sorted=False)
        out, _ = self.rnn(packed)
        padded, _ = pad_packed_sequence(out, batch_first=True)
        last = padded[torch.arange(x.shape[0]), lengths - 1]
        result: torch.Tensor = self.head(last)
        return result


class WithEMA(nn.Module):
    """A network and its EMA copy (torch.optim.swa_utils.AveragedModel), one module for record."""

    def __init__(self, decay: float = 0.9) -> None:
        super().__init__()
        self.net = ResMLP()
        avg = torch.optim.swa_utils.get_ema_multi_avg_fn(decay)  # type: ignore[no-untyped-call]
        self.ema = torch.optim.swa_utils.AveragedModel(self.net, multi_avg_fn=avg)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.net(x)
        return out


BUILD: dict[str, Callable[[str], Any]] = {
    "falcon": falcon,
    "neox": neox,
    "bloom": bloom,
    "mistral": mistral,
    "olmoe": olmoe,
    "marian": marian,
    "dinov2": dinov2,
    "resmlp": lambda attn: ResMLP(),
    "lora": lambda attn: with_lora(ResMLP(), zero_b=False),
    "wn-mlp": lambda attn: weight_normed(ResMLP()),
    "sn-mlp": lambda attn: spectral_normed(ResMLP()),
    "rnn": lambda attn: RNNNet(),
    "ema": lambda attn: WithEMA(),
    "hooked": lambda attn: hooked(),
}


def build(name: str, attn: str = "sdpa") -> nn.Module:
    torch.manual_seed(0)
    model: nn.Module = BUILD[name](attn).eval()
    return model


def seeded(make: Callable[[], nn.Module]) -> nn.Module:
    """A target built like build() does: same seed, so the same weights."""
    torch.manual_seed(0)
    return make().eval()


# -- inputs and runs -------------------------------------------------------------------------------

DECODERS = ("falcon", "neox", "bloom", "mistral", "olmoe")
MLPS = ("resmlp", "lora", "wn-mlp", "sn-mlp", "ema", "hooked")


def ids(b: int = 2, t: int = 12) -> torch.Tensor:
    return torch.randint(3, VOCAB, (b, t), generator=gen())


def left_padded(b: int = 2, t: int = 10) -> tuple[torch.Tensor, torch.Tensor]:
    """Token ids with the first row left-padded by 3 (pad id 0) and its mask."""
    x = ids(b, t)
    mask = torch.ones(b, t, dtype=torch.long)
    x[0, :3] = 0
    mask[0, :3] = 0
    return x, mask


def right_padded(b: int = 2, t: int = 10) -> tuple[torch.Tensor, torch.Tensor]:
    x = ids(b, t)
    mask = torch.ones(b, t, dtype=torch.long)
    x[1, -4:] = 0
    mask[1, -4:] = 0
    return x, mask


def inputs(name: str, dtype: torch.dtype | None = None, memory: torch.memory_format | None = None) -> Any:
    """(args, kwargs) of one forward of ``name``; float inputs cast to ``dtype`` when given."""
    dt = dtype or torch.float32
    if name in DECODERS:
        return (ids(),), {}
    if name == "marian":
        src, mask = right_padded()
        return (), {"input_ids": src, "attention_mask": mask, "decoder_input_ids": ids(2, 6)}
    if name == "dinov2":
        x = torch.randn(2, 3, 32, 32, generator=gen(), dtype=torch.float32).to(dt)
        return (x.contiguous(memory_format=memory) if memory else x,), {}
    if name in MLPS:
        return (torch.randn(4, 6, 16, generator=gen(), dtype=torch.float32).to(dt),), {}
    if name == "rnn":
        x = torch.randn(3, 7, 8, generator=gen(), dtype=torch.float32).to(dt)
        return (x, torch.tensor([7, 4, 2])), {}
    raise KeyError(name)


def call(name: str, model: nn.Module, dtype: torch.dtype | None = None, **extra: Any) -> Any:
    args, kwargs = inputs(name, dtype, extra.pop("memory", None))
    return model(*args, **kwargs, **extra)


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


def padded_forward(name: str, model: nn.Module, ctx: Any) -> Any:
    x, mask = left_padded()
    with torch.no_grad():
        return model(input_ids=x, attention_mask=mask)


def padded_no_mask(name: str, model: nn.Module, ctx: Any) -> Any:
    """A real bug: the target's pipeline drops the attention mask of a padded batch."""
    x, _ = left_padded()
    with torch.no_grad():
        return model(input_ids=x)


def marian_no_mask(name: str, model: nn.Module, ctx: Any) -> Any:
    """A real bug: the encoder's padding mask is dropped."""
    src, _ = right_padded()
    with torch.no_grad():
        return model(input_ids=src, decoder_input_ids=ids(2, 6))


def functional(name: str, model: nn.Module, ctx: Any) -> Any:
    """torch.func.functional_call with the model's own parameters and buffers."""
    state = {**dict(model.named_parameters()), **dict(model.named_buffers())}
    args, kwargs = inputs(name)
    with torch.no_grad():
        return torch.func.functional_call(model, state, args, kwargs)


def functional_changed(path: str) -> Run:
    """A real bug: functional_call fed a params dict whose `path`.weight is another tensor."""

    def run(name: str, model: nn.Module, ctx: Any) -> Any:
        state = {**dict(model.named_parameters()), **dict(model.named_buffers())}
        w = state[f"{path}.weight"]
        state[f"{path}.weight"] = w.detach() + 1e-3 * torch.randn(w.shape, generator=gen(7))
        args, kwargs = inputs(name)
        with torch.no_grad():
            return torch.func.functional_call(model, state, args, kwargs)

    return run


def loss_of(name: str, model: nn.Module, batch: slice | None = None) -> torch.Tensor:
    if name in DECODERS:
        x = ids(4, 12)[batch or slice(None)]
        return model(input_ids=x, labels=x).loss  # type: ignore[no-any-return]
    if name == "marian":
        src, mask = right_padded(4)
        tgt = ids(4, 6)
        return model(input_ids=src, attention_mask=mask, labels=tgt).loss  # type: ignore[no-any-return]
    if name in MLPS:
        x = torch.randn(4, 6, 16, generator=gen())[batch or slice(None)]
        return model(x).pow(2).mean()  # type: ignore[no-any-return]
    out = call(name, model)
    logits = out if isinstance(out, torch.Tensor) else out.last_hidden_state
    return logits.float().pow(2).mean()


def train_step(name: str, model: nn.Module, ctx: Any) -> Any:
    model.train()
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=1e-1)
    loss = loss_of(name, model)
    loss.backward()  # type: ignore[no-untyped-call]
    opt.step()
    opt.zero_grad()
    return loss


def adapters_only_step(name: str, model: nn.Module, ctx: Any) -> Any:
    """LoRA fine-tuning: the base frozen, only lora_A / lora_B trained."""
    for pname, p in model.named_parameters():
        p.requires_grad_("lora_" in pname)
    return train_step(name, model, ctx)


def grad_accumulation(name: str, model: nn.Module, ctx: Any, average: bool = True) -> Any:
    """Two micro-batches of 2, loss averaged over them, one optimizer step."""
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=1e-1)
    for part in (slice(0, 2), slice(2, 4)):
        loss = loss_of(name, model, part)
        (loss / 2 if average else loss).backward()  # type: ignore[no-untyped-call]
    opt.step()
    opt.zero_grad()
    return loss


def grad_accumulation_summed(name: str, model: nn.Module, ctx: Any) -> Any:
    """A real bug: the micro-batch losses are not averaged (the step is twice as large)."""
    return grad_accumulation(name, model, ctx, average=False)


def ema_steps(name: str, model: nn.Module, ctx: Any) -> Any:
    """Two train steps of `net`, the EMA copy updated after each, then an eval forward of the EMA."""
    ema = untyped(model).ema
    for _ in range(2):
        train_step(name, untyped(model).net, ctx)
        ema.update_parameters(untyped(model).net)
    model.eval()
    with torch.no_grad():
        return ema(torch.randn(4, 6, 16, generator=gen()))


def ema_two_threads(name: str, model: nn.Module, ctx: Any) -> Any:
    torch.set_num_threads(2)
    try:
        return ema_steps(name, model, ctx)
    finally:
        torch.set_num_threads(1)


def train_then_eval(name: str, model: nn.Module, ctx: Any) -> Any:
    train_step(name, model, ctx)
    model.eval()
    with torch.no_grad():
        return call(name, model)


def greedy(name: str, model: nn.Module, ctx: Any) -> Any:
    kwargs: dict[str, Any] = {"max_new_tokens": 5, "do_sample": False, "pad_token_id": 0}
    if name == "marian":
        src, mask = right_padded(2, 8)
    elif name == "bloom":
        src, mask = left_padded(2, 8)
    else:
        src, mask = ids(2, 8), torch.ones(2, 8, dtype=torch.long)
    with torch.no_grad():
        out = untyped(model).generate(src, attention_mask=mask, **kwargs)
    if ctx is not None:
        ctx.tap("sequences", out)
    return out


def padded_autocast(name: str, model: nn.Module, ctx: Any) -> Any:
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return padded_forward(name, model, ctx)


def long_forward(name: str, model: nn.Module, ctx: Any) -> Any:
    """4 x 32 tokens: more router decisions, so more chances of a near-tie under a cast."""
    with torch.no_grad():
        return model(ids(4, 32))


def long_autocast(name: str, model: nn.Module, ctx: Any) -> Any:
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return long_forward(name, model, ctx)


def train_step_autocast(name: str, model: nn.Module, ctx: Any) -> Any:
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return train_step(name, model, ctx)


def cached_parametrizations(name: str, model: nn.Module, ctx: Any) -> Any:
    """torch.nn.utils.parametrize.cached(): each parametrized weight computed once in the block."""
    with torch.nn.utils.parametrize.cached():
        return forward(name, model, ctx)


def deterministic(name: str, model: nn.Module, ctx: Any) -> Any:
    torch.use_deterministic_algorithms(True)
    try:
        return forward(name, model, ctx)
    finally:
        torch.use_deterministic_algorithms(False)


def shifted_positions(name: str, model: nn.Module, ctx: Any) -> Any:
    """A real bug: the target's pipeline passes position_ids off by one."""
    x = ids()
    with torch.no_grad():
        return model(x, position_ids=torch.arange(1, x.shape[1] + 1).expand(x.shape[0], -1))


def rnn_wrong_lengths(name: str, model: nn.Module, ctx: Any) -> Any:
    """A real bug: one sequence's length is off by one (a padding step treated as a token)."""
    args, _ = inputs(name)
    with torch.no_grad():
        return model(args[0], torch.tensor([7, 4, 3]))


def ema_from_itself(name: str, model: nn.Module, ctx: Any) -> Any:
    """A real bug: the EMA is updated from its own copy instead of the trained network."""
    ema = untyped(model).ema
    for _ in range(2):
        train_step(name, untyped(model).net, ctx)
        ema.update_parameters(ema.module)
    model.eval()
    with torch.no_grad():
        return ema(torch.randn(4, 6, 16, generator=gen()))


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


def to_channels_last(model: nn.Module) -> nn.Module:
    return model.to(memory_format=torch.channels_last)  # type: ignore[call-overload,no-any-return]


def untyped(model: Any) -> Any:
    """The model as Any: HF methods (generate) and attributes mypy can't see."""
    return model


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


def replace(path: str, make: Callable[[], nn.Module]) -> Callable[[nn.Module], None]:
    def change(model: nn.Module) -> None:
        parent, _, leaf = path.rpartition(".")
        setattr(at(model, parent), leaf, make())

    return change


def scale_output(path: str, factor: float) -> Callable[[nn.Module], None]:
    """A forward hook on ``path`` that scales its output (user code outside the module's forward)."""

    def change(model: nn.Module) -> None:
        at(model, path).register_forward_hook(lambda module, args, out: out * factor)

    return change


def shift_input(path: str, amount: float) -> Callable[[nn.Module], None]:
    """A forward pre-hook on ``path`` that shifts its input."""

    def change(model: nn.Module) -> None:
        at(model, path).register_forward_pre_hook(lambda module, args: (args[0] + amount, *args[1:]))

    return change


def hooked() -> nn.Module:
    """ResMLP with the user's own forward hook (halving blocks.0.down's output) on both sides."""
    model = ResMLP()
    scale_output("blocks.0.down", 0.5)(model)
    return model


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


def cases() -> list[Case]:
    out: list[Case] = []
    add = out.append
    # Decoders: Falcon and GPT-NeoX (parallel attention + MLP, fused query_key_value), BLOOM (ALiBi),
    # Mistral (sliding window), OLMoE (top-k router, fused 3-D expert weights).
    for m in DECODERS:
        add(Case(m, "forward", "none", "pass"))
        add(Case(m, "forward", "threads 1 -> 2", "pass", verify_run=two_threads))
        if m != "bloom":  # eager only
            add(Case(m, "forward", "sdpa -> eager", "pass", target_attn="eager"))
        add(Case(m, "forward", "autocast bf16 target", "pass", verify_run=autocast_forward))
        add(Case(m, "train step", "none", "pass", run=train_step))
        add(Case(m, "greedy generate (tap)", "none", "pass", run=greedy))
    add(Case("falcon", "forward", "compile(eager) target", "pass", target_wrap=compiled))
    add(Case("falcon", "forward", "model.half() target", "pass", verify_run=half_forward, target_wrap=halved))
    add(Case("neox", "forward", "DDP-style .module target", "pass", target_wrap=DDPLike))
    add(Case("neox", "forward", "inference_mode target", "pass", verify_run=inference_forward))
    add(Case("bloom", "forward", "left padding + mask", "pass", run=padded_forward))
    add(Case("bloom", "forward", "inference_mode target", "pass", verify_run=inference_forward))
    add(
        Case("mistral", "forward", "model.half() target", "pass", verify_run=half_forward, target_wrap=halved)
    )
    add(Case("mistral", "greedy generate (tap)", "sdpa -> eager", "pass", run=greedy, target_attn="eager"))
    add(Case("olmoe", "forward", "model.half() target", "pass", verify_run=half_forward, target_wrap=halved))
    add(Case("olmoe", "forward", "compile(eager) target", "pass", target_wrap=compiled))
    # Decoders, real changes.
    add(
        Case(
            "falcon",
            "forward",
            "query_key_value +1e-3 (layer 1, parallel attn)",
            "fail",
            "transformer.h.1.self_attention.query_key_value",
            mutate=perturb("transformer.h.1.self_attention.query_key_value"),
        )
    )
    add(
        Case(
            "falcon",
            "forward",
            "mlp act GELU -> tanh GELU (layer 0)",
            "fail",
            "transformer.h.0.mlp.act",
            mutate=replace("transformer.h.0.mlp.act", lambda: nn.GELU(approximate="tanh")),
        )
    )
    add(
        Case(
            "falcon",
            "greedy generate (tap)",
            "dense_4h_to_h +1e-3 (layer 1)",
            "fail",
            "transformer.h.1.mlp.dense_4h_to_h",
            run=greedy,
            mutate=perturb("transformer.h.1.mlp.dense_4h_to_h"),
        )
    )
    add(
        Case(
            "neox",
            "forward",
            "post_attention_layernorm eps 1e-5 -> 1e-2 (layer 0)",
            "fail",
            "gpt_neox.layers.0.post_attention_layernorm",
            mutate=set_attr("gpt_neox.layers.0.post_attention_layernorm", eps=1e-2),
        )
    )
    add(
        Case(
            "neox",
            "forward",
            "parallel -> sequential residual (layer 1)",
            "fail",
            "gpt_neox.layers.1",
            mutate=set_attr("gpt_neox.layers.1", use_parallel_residual=False),
        )
    )
    add(
        Case(
            "neox",
            "forward",
            "final_layer_norm weight +1e-3",
            "fail",
            "gpt_neox.final_layer_norm",
            mutate=perturb("gpt_neox.final_layer_norm"),
        )
    )
    add(
        Case(
            "bloom",
            "forward",
            "word_embeddings_layernorm weight +1e-3",
            "fail",
            "transformer.word_embeddings_layernorm",
            mutate=perturb("transformer.word_embeddings_layernorm"),
        )
    )
    add(
        Case(
            "bloom",
            "forward",
            "left padding, mask dropped by the target",
            "fail",
            "transformer.h.0.self_attention",
            run=padded_forward,
            verify_run=padded_no_mask,
        )
    )
    add(
        Case(
            "bloom",
            "greedy generate (tap)",
            "left padding, mlp dense_h_to_4h +1e-3 (layer 1)",
            "fail",
            "transformer.h.1.mlp.dense_h_to_4h",
            run=greedy,
            mutate=perturb("transformer.h.1.mlp.dense_h_to_4h"),
        )
    )
    add(
        Case(
            "mistral",
            "forward",
            "sliding window 4 -> 8",
            "fail",
            "model.layers.0",
            build_target=lambda: seeded(lambda: mistral("sdpa", window=8)),
        )
    )
    add(
        Case(
            "mistral",
            "greedy generate (tap)",
            "v_proj +1e-3 (layer 1)",
            "fail",
            "model.layers.1.self_attn.v_proj",
            run=greedy,
            mutate=perturb("model.layers.1.self_attn.v_proj"),
        )
    )
    add(
        Case(
            "olmoe",
            "forward",
            "router top-k 2 -> 1 (layer 0)",
            "fail",
            "model.layers.0.mlp.gate",
            mutate=set_attr("model.layers.0.mlp.gate", top_k=1),
        )
    )
    add(
        Case(
            "olmoe",
            "forward",
            "router weight +1e-3 (layer 1)",
            "fail",
            "model.layers.1.mlp.gate",
            mutate=perturb("model.layers.1.mlp.gate"),
        )
    )
    add(
        Case(
            "olmoe",
            "forward",
            "experts down_proj +1e-3 (layer 0, fused 3-D)",
            "fail",
            "model.layers.0.mlp.experts",
            mutate=perturb("model.layers.0.mlp.experts", "down_proj"),
        )
    )
    add(
        Case(
            "olmoe",
            "forward",
            "router norm_topk_prob False -> True (layer 1)",
            "fail",
            "model.layers.1.mlp.gate",
            mutate=set_attr("model.layers.1.mlp.gate", norm_topk_prob=True),
        )
    )
    # MarianMT: encoder-decoder, right-padded source, greedy generate with a cross-attention cache.
    add(Case("marian", "forward", "none", "pass"))
    add(Case("marian", "forward", "threads 1 -> 2", "pass", verify_run=two_threads))
    add(Case("marian", "forward", "sdpa -> eager", "pass", target_attn="eager"))
    add(Case("marian", "forward", "autocast bf16 target", "pass", verify_run=autocast_forward))
    add(Case("marian", "forward", "model.half() target", "pass", verify_run=half_forward, target_wrap=halved))
    add(Case("marian", "train step", "none", "pass", run=train_step))
    add(Case("marian", "greedy generate (tap)", "none", "pass", run=greedy))
    add(Case("marian", "greedy generate (tap)", "sdpa -> eager", "pass", run=greedy, target_attn="eager"))
    add(
        Case(
            "marian",
            "greedy generate (tap)",
            "compile(eager) target",
            "pass",
            run=greedy,
            target_wrap=compiled,
        )
    )
    add(
        Case(
            "marian",
            "greedy generate (tap)",
            "cross-attn k_proj +1e-3 (decoder layer 1)",
            "fail",
            "model.decoder.layers.1.encoder_attn.k_proj",
            run=greedy,
            mutate=perturb("model.decoder.layers.1.encoder_attn.k_proj"),
        )
    )
    add(
        Case(
            "marian",
            "forward",
            "encoder padding mask dropped",
            "fail",
            "model.encoder.layers.0.self_attn",
            verify_run=marian_no_mask,
        )
    )
    add(
        Case(
            "marian",
            "forward",
            "final_logits_bias +0.1 (a buffer on the root)",
            "fail",
            "MarianMTModel",
            mutate=perturb("", "final_logits_bias", scale=0.1),
        )
    )
    add(
        Case(
            "marian",
            "forward",
            "encoder layer 1 final_layer_norm eps -> 1e-2",
            "fail",
            "model.encoder.layers.1.final_layer_norm",
            mutate=set_attr("model.encoder.layers.1.final_layer_norm", eps=1e-2),
        )
    )
    # Dinov2: LayerScale, drop path (eval: identity; train: random).
    add(Case("dinov2", "forward", "none", "pass"))
    add(Case("dinov2", "forward", "threads 1 -> 2", "pass", verify_run=two_threads))
    add(Case("dinov2", "forward", "sdpa -> eager", "pass", target_attn="eager"))
    add(Case("dinov2", "forward", "autocast bf16 target", "pass", verify_run=autocast_forward))
    add(Case("dinov2", "forward", "model.half() target", "pass", verify_run=half_forward, target_wrap=halved))
    add(
        Case(
            "dinov2",
            "forward",
            "channels_last model + input",
            "pass",
            verify_run=channels_last_forward,
            target_wrap=to_channels_last,
        )
    )
    add(Case("dinov2", "forward", "inference_mode target", "pass", verify_run=inference_forward))
    add(Case("dinov2", "train step (drop path on)", "none", "pass", run=train_step))
    add(Case("dinov2", "train then eval", "none", "pass", run=train_then_eval))
    add(
        Case(
            "dinov2",
            "forward",
            "layer_scale1 lambda1 +1e-3 (layer 1)",
            "fail",
            "encoder.layer.1.layer_scale1",
            mutate=perturb("encoder.layer.1.layer_scale1", "lambda1"),
        )
    )
    add(
        Case(
            "dinov2",
            "forward",
            "norm1 eps 1e-6 -> 1e-2 (layer 0)",
            "fail",
            "encoder.layer.0.norm1",
            mutate=set_attr("encoder.layer.0.norm1", eps=1e-2),
        )
    )
    add(
        Case(
            "dinov2",
            "forward",
            "drop path left on in eval (layer 1)",
            "fail",
            "encoder.layer.1.drop_path",
            mutate=lambda model: at(model, "encoder.layer.1.drop_path").train(),
        )
    )
    add(
        Case(
            "dinov2",
            "forward",
            "patch embedding conv +1e-3",
            "fail",
            "embeddings.patch_embeddings.projection",
            mutate=perturb("embeddings.patch_embeddings.projection"),
        )
    )
    # LoRA, hand-written adapters.
    add(Case("resmlp", "forward", "none", "pass"))
    add(
        Case(
            "resmlp",
            "forward",
            "zero-B LoRA wrapper on the target",
            "pass",
            target_wrap=lambda m: with_lora(m, zero_b=True),
        )
    )
    add(Case("lora", "forward", "none", "pass"))
    add(Case("lora", "forward", "threads 1 -> 2", "pass", verify_run=two_threads))
    add(Case("lora", "forward", "autocast bf16 target", "pass", verify_run=autocast_forward))
    add(Case("lora", "forward", "merged into the base (target)", "pass", target_wrap=merged))
    add(Case("lora", "train step (adapters only)", "none", "pass", run=adapters_only_step))
    add(
        Case(
            "lora",
            "forward",
            "lora_B +1e-3 (blocks.1.up)",
            "fail",
            "blocks.1.up.lora_B",
            mutate=perturb("blocks.1.up.lora_B"),
        )
    )
    add(
        Case(
            "lora",
            "forward",
            "alpha 8 -> 16 (blocks.0.down scaling)",
            "fail",
            "blocks.0.down",
            mutate=set_attr("blocks.0.down", scaling=4.0),
        )
    )
    add(
        Case(
            "lora",
            "forward",
            "adapters dropped on the target",
            "fail",
            "blocks.0.up",
            build_target=lambda: seeded(ResMLP),
        )
    )
    add(
        Case(
            "lora",
            "forward",
            "merged, but blocks.1.down merged twice",
            "fail",
            "blocks.1.down",
            target_wrap=lambda m: merged(m),
            mutate=lambda m: (
                untyped(m)
                .blocks[1]
                .down.base.weight.data.add_(
                    untyped(m).blocks[1].down.lora_B.weight @ untyped(m).blocks[1].down.lora_A.weight * 2.0
                )
            ),
        )
    )
    add(
        Case(
            "lora",
            "train step (adapters only)",
            "base left trainable on the target",
            "fail",
            None,  # every base weight changes; any module's state is right
            run=adapters_only_step,
            verify_run=train_step,
        )
    )
    # weight_norm / spectral_norm parametrizations (their parametrization modules run as calls).
    add(Case("wn-mlp", "forward", "none", "pass"))
    add(Case("wn-mlp", "train step", "none", "pass", run=train_step))
    add(Case("resmlp", "forward", "plain -> weight_norm target", "pass", target_wrap=weight_normed))
    add(
        Case(
            "wn-mlp",
            "forward",
            "weight_norm g (original0) +1e-3 (blocks.1.up)",
            "fail",
            "blocks.1.up",
            mutate=perturb("blocks.1.up.parametrizations.weight", "original0"),
        )
    )
    add(Case("sn-mlp", "forward", "none", "pass"))
    add(Case("sn-mlp", "train step (power iteration)", "none", "pass", run=train_step))
    add(
        Case(
            "sn-mlp",
            "train step (power iteration)",
            "n_power_iterations 1 -> 3 (blocks.0.up)",
            "fail",
            "blocks.0.up",
            run=train_step,
            mutate=set_attr("blocks.0.up.parametrizations.weight.0", n_power_iterations=3),
        )
    )
    # torch.func.functional_call.
    add(Case("resmlp", "functional_call", "none", "pass", run=functional))
    add(Case("resmlp", "forward", "plain -> functional_call target", "pass", verify_run=functional))
    add(
        Case(
            "resmlp",
            "functional_call",
            "params dict: blocks.0.down.weight +1e-3",
            "fail",
            "blocks.0.down",
            run=functional,
            verify_run=functional_changed("blocks.0.down"),
        )
    )
    # nn.RNN over a PackedSequence.
    add(Case("rnn", "forward", "none", "pass"))
    add(Case("rnn", "forward", "threads 1 -> 2", "pass", verify_run=two_threads))
    add(Case("rnn", "train step", "none", "pass", run=train_step))
    add(
        Case(
            "rnn",
            "forward",
            "nonlinearity tanh -> relu",
            "fail",
            "rnn",
            build_target=lambda: seeded(lambda: RNNNet("relu")),
        )
    )
    add(
        Case(
            "rnn",
            "forward",
            "rnn weight_hh_l1 +1e-3",
            "fail",
            "rnn",
            mutate=perturb("rnn", "weight_hh_l1"),
        )
    )
    # EMA copy updated in the block.
    add(Case("ema", "2 steps + EMA eval", "none", "pass", run=ema_steps))
    add(
        Case("ema", "2 steps + EMA eval", "threads 1 -> 2", "pass", run=ema_steps, verify_run=ema_two_threads)
    )
    add(
        Case(
            "ema",
            "2 steps + EMA eval",
            "EMA decay 0.9 -> 0.99",
            "fail",
            "ema",
            run=ema_steps,
            build_target=lambda: seeded(lambda: WithEMA(decay=0.99)),
        )
    )
    # Gradient accumulation over 2 micro-batches.
    add(Case("resmlp", "grad accumulation x2", "none", "pass", run=grad_accumulation))
    add(Case("wn-mlp", "grad accumulation x2", "none", "pass", run=grad_accumulation))
    add(
        Case(
            "resmlp",
            "grad accumulation x2",
            "losses summed, not averaged",
            "fail",
            None,
            run=grad_accumulation,
            verify_run=grad_accumulation_summed,
        )
    )
    out.extend(cases_b())
    return out


def cases_b() -> list[Case]:
    """Round 4b: written and committed after round 4a's fixes, before any envsnap run of these."""
    out: list[Case] = []
    add = out.append
    # Benign.
    add(Case("neox", "forward", "model.half() target", "pass", verify_run=half_forward, target_wrap=halved))
    add(Case("bloom", "forward", "model.half() target", "pass", verify_run=half_forward, target_wrap=halved))
    add(
        Case(
            "bloom",
            "forward",
            "left padding, autocast bf16 target",
            "pass",
            run=padded_forward,
            verify_run=padded_autocast,
        )
    )
    add(
        Case(
            "olmoe",
            "forward 4x32 tokens",
            "autocast bf16 target",
            "pass",
            run=long_forward,
            verify_run=long_autocast,
        )
    )
    add(
        Case(
            "olmoe",
            "train step",
            "autocast bf16 target",
            "pass",
            run=train_step,
            verify_run=train_step_autocast,
        )
    )
    add(Case("falcon", "greedy generate (tap)", "sdpa -> eager", "pass", run=greedy, target_attn="eager"))
    add(Case("wn-mlp", "forward", "parametrize.cached() target", "pass", verify_run=cached_parametrizations))
    add(Case("sn-mlp", "forward", "threads 1 -> 2", "pass", verify_run=two_threads))
    add(Case("resmlp", "forward", "deterministic algorithms target", "pass", verify_run=deterministic))
    add(Case("rnn", "forward", "inference_mode target", "pass", verify_run=inference_forward))
    add(Case("hooked", "forward", "the user's forward hook on both", "pass"))
    add(Case("hooked", "train step", "the user's forward hook on both", "pass", run=train_step))
    # Real.
    add(
        Case(
            "mistral",
            "forward",
            "attention scaling x1.1 (layer 1)",
            "fail",
            "model.layers.1.self_attn",
            mutate=set_attr("model.layers.1.self_attn", scaling=0.25 * 1.1),
        )
    )
    add(
        Case(
            "mistral",
            "forward",
            "position_ids off by one",
            "fail",
            "model.rotary_emb",
            verify_run=shifted_positions,
        )
    )
    add(
        Case(
            "falcon",
            "forward",
            "rotary inv_freq x1.01",
            "fail",
            "transformer.rotary_emb",
            mutate=lambda model: untyped(at(model, "transformer.rotary_emb")).inv_freq.mul_(1.01),
        )
    )
    add(
        Case(
            "neox",
            "forward",
            "partial rotary 0.25 -> 0.5",
            "fail",
            "gpt_neox.rotary_emb",
            build_target=lambda: seeded(lambda: neox_partial(0.5)),
        )
    )
    add(
        Case(
            "resmlp",
            "forward",
            "target-only forward hook: blocks.0.down x1.001",
            "fail",
            "blocks.0.down",
            mutate=scale_output("blocks.0.down", 1.001),
        )
    )
    add(
        Case(
            "resmlp",
            "forward",
            "target-only pre-hook: blocks.1.norm input +1e-3",
            "fail",
            "blocks.1.norm",
            mutate=shift_input("blocks.1.norm", 1e-3),
        )
    )
    add(
        Case(
            "hooked",
            "forward",
            "the user's hook missing on the target",
            "fail",
            "blocks.0.down",
            build_target=lambda: seeded(ResMLP),
        )
    )
    add(
        Case(
            "dinov2",
            "train step (drop path on)",
            "drop_path_rate 0.1 -> 0.2",
            "fail",
            "encoder.layer.1.drop_path",
            run=train_step,
            mutate=set_attr("encoder.layer.1.drop_path", drop_prob=0.2),
        )
    )
    add(
        Case(
            "rnn",
            "forward",
            "one sequence length off by one",
            "fail",
            "rnn|RNNNet",
            verify_run=rnn_wrong_lengths,
        )
    )
    add(
        Case(
            "ema",
            "2 steps + EMA eval",
            "EMA updated from itself",
            "fail",
            "ema",
            run=ema_steps,
            verify_run=ema_from_itself,
        )
    )
    add(
        Case(
            "olmoe",
            "forward",
            "experts gate_up_proj +1e-3 (layer 1)",
            "fail",
            "model.layers.1.mlp.experts",
            mutate=perturb("model.layers.1.mlp.experts", "gate_up_proj"),
        )
    )
    add(
        Case(
            "marian",
            "greedy generate (tap)",
            "decoder embed_positions weight +1e-3",
            "fail",
            "model.decoder.embed_positions",
            run=greedy,
            mutate=perturb("model.decoder.embed_positions"),
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
    a += flat([t for _, t in sorted((*reference.named_buffers(), *reference.named_parameters()))])
    b += flat([t for _, t in sorted((*target.named_buffers(), *target.named_parameters()))])
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
    if case.expect == "pass":
        if report.verdict in ("pass", "pass-with-limitations"):
            return "ok", said + limits
        if report.verdict == "slow":
            return "SLOW-ALARM", said
        return "FALSE-ALARM", said + ("" if first is None else f" :: {first.summary[:400]}")
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
        lambda case: f"{case.model:8s} {case.feature:28s} {case.change}",
        width=90,
        detail_chars=300,
    )


if __name__ == "__main__":
    sys.exit(main())
