"""Trial of envsnap.record / envsnap.verify on real Hugging Face model code (issue #23).

Random-init tiny configs (no downloads), CPU, one torch thread. Each case records a run of a
model, then verifies a target (the same model, or a changed copy) and scores the verdict against
the expectation written in the case table *before* running:

  expect "pass": verdict pass / pass-with-limitations (anything else numeric is a FALSE ALARM;
                 a `slow` verdict alone is counted apart, as a timing false alarm)
  expect "fail": verdict fail, and the first divergence's module path must contain `where`
                 (otherwise WRONG LAYER; a pass is a MISS)
  any exception: CRASH (the traceback's last line is printed)

Run: python scripts/hf_verify_trial.py [filter]   (needs transformers; not part of the test suite)
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

import transformers  # noqa: E402
from transformers.activations import ACT2FN  # noqa: E402
from transformers.utils import logging as hf_logging  # noqa: E402

hf_logging.set_verbosity_error()

VOCAB = 96


def gen(seed: int = 1) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


# -- models ----------------------------------------------------------------------------------------


def gpt2(attn: str = "sdpa") -> nn.Module:
    cfg = transformers.GPT2Config(
        n_layer=2, n_embd=64, n_head=4, n_positions=64, vocab_size=VOCAB, attn_implementation=attn
    )
    return transformers.GPT2LMHeadModel(cfg)


def llama(attn: str = "sdpa") -> nn.Module:
    cfg = transformers.LlamaConfig(
        num_hidden_layers=2,
        hidden_size=64,
        intermediate_size=128,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=VOCAB,
        max_position_embeddings=64,
        hidden_act="gelu",
        attn_implementation=attn,
    )
    return transformers.LlamaForCausalLM(cfg)


def bert(attn: str = "sdpa") -> nn.Module:
    cfg = transformers.BertConfig(
        num_hidden_layers=2,
        hidden_size=64,
        intermediate_size=128,
        num_attention_heads=4,
        vocab_size=VOCAB,
        max_position_embeddings=64,
        attn_implementation=attn,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
    )
    return transformers.BertForSequenceClassification(cfg)


def t5(attn: str = "sdpa") -> nn.Module:
    cfg = transformers.T5Config(
        num_layers=2,
        num_decoder_layers=2,
        d_model=64,
        d_ff=128,
        num_heads=4,
        d_kv=16,
        vocab_size=VOCAB,
        feed_forward_proj="gated-gelu",
        dropout_rate=0.0,
        decoder_start_token_id=0,
        pad_token_id=0,
    )
    return transformers.T5ForConditionalGeneration(cfg)


def vit(attn: str = "sdpa") -> nn.Module:
    cfg = transformers.ViTConfig(
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
    return transformers.ViTForImageClassification(cfg)


def whisper(attn: str = "sdpa") -> nn.Module:
    cfg = transformers.WhisperConfig(
        encoder_layers=2,
        decoder_layers=2,
        d_model=64,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=128,
        decoder_ffn_dim=128,
        vocab_size=VOCAB,
        num_mel_bins=16,
        max_source_positions=32,
        max_target_positions=32,
        attn_implementation=attn,
        dropout=0.0,
        pad_token_id=0,
        decoder_start_token_id=1,
    )
    return transformers.WhisperForConditionalGeneration(cfg)


def mamba(attn: str = "sdpa") -> nn.Module:
    cfg = transformers.MambaConfig(
        num_hidden_layers=2, hidden_size=64, state_size=8, vocab_size=VOCAB, expand=2, conv_kernel=4
    )
    return transformers.MambaForCausalLM(cfg)


def gpt2_big(attn: str = "sdpa") -> nn.Module:
    cfg = transformers.GPT2Config(
        n_layer=4, n_embd=256, n_head=8, n_positions=128, vocab_size=1000, attn_implementation=attn
    )
    return transformers.GPT2LMHeadModel(cfg)


def llama_big(attn: str = "sdpa") -> nn.Module:
    cfg = transformers.LlamaConfig(
        num_hidden_layers=4,
        hidden_size=256,
        intermediate_size=688,
        num_attention_heads=8,
        num_key_value_heads=4,
        vocab_size=1000,
        max_position_embeddings=128,
        hidden_act="gelu",
        attn_implementation=attn,
    )
    return transformers.LlamaForCausalLM(cfg)


BUILD = {"gpt2": gpt2, "llama": llama, "bert": bert, "t5": t5, "vit": vit, "whisper": whisper, "mamba": mamba}


BIG = {"gpt2-big": gpt2_big, "llama-big": llama_big}


def build(name: str, attn: str = "sdpa") -> nn.Module:
    torch.manual_seed(0)
    return {**BUILD, **BIG}[name](attn).eval()


# -- inputs ----------------------------------------------------------------------------------------


def ids(b: int = 2, t: int = 12) -> torch.Tensor:
    return torch.randint(3, VOCAB, (b, t), generator=gen())


def left_padded() -> tuple[torch.Tensor, torch.Tensor]:
    input_ids = ids(3, 12)
    mask = torch.ones_like(input_ids)
    mask[1, :4] = 0
    mask[2, :7] = 0
    input_ids = input_ids.masked_fill(mask == 0, 0)
    return input_ids, mask


def forward(name: str, model: nn.Module, **extra: Any) -> Any:
    if name in ("gpt2-big", "llama-big"):
        return model(input_ids=torch.randint(3, 1000, (4, 64), generator=gen()), **extra)
    if name in ("gpt2", "llama", "mamba"):
        return model(input_ids=ids(), **extra)
    if name == "bert":
        x = ids()
        return model(input_ids=x, attention_mask=torch.ones_like(x), **extra)
    if name == "t5":
        return model(input_ids=ids(), decoder_input_ids=ids(2, 6), **extra)
    if name == "vit":
        return model(pixel_values=torch.randn(2, 3, 32, 32, generator=gen()), **extra)
    if name == "whisper":
        feats = torch.randn(2, 16, 64, generator=gen())
        return model(input_features=feats, decoder_input_ids=ids(2, 6), **extra)
    raise KeyError(name)


def padded_forward(name: str, model: nn.Module) -> Any:
    input_ids, mask = left_padded()
    return model(input_ids=input_ids, attention_mask=mask)


def generate(name: str, model: nn.Module) -> Any:
    from transformers import DynamicCache

    input_ids, mask = left_padded()
    return model.generate(
        input_ids=input_ids,
        attention_mask=mask,
        max_new_tokens=4,
        do_sample=False,
        past_key_values=DynamicCache(),
        pad_token_id=0,
    )


def train_step(name: str, model: nn.Module) -> Any:
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=1e-2)
    x = ids()
    out = model(input_ids=x, labels=x) if name != "bert" else model(input_ids=x, labels=torch.tensor([0, 1]))
    out.loss.backward()
    opt.step()
    opt.zero_grad()
    return out


def autocast_forward(name: str, model: nn.Module) -> Any:
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return forward(name, model)


# -- changes to the target ---------------------------------------------------------------------------


def layer(model: nn.Module, name: str) -> nn.Module:  # the -big configs share the paths
    return dict(model.named_modules())[name]


ACT = {  # the activation module in the second layer's MLP
    "gpt2": "transformer.h.1.mlp.act",
    "llama": "model.layers.1.mlp.act_fn",
    "bert": "bert.encoder.layer.1.intermediate.intermediate_act_fn",
    "t5": "encoder.block.1.layer.1.DenseReluDense.act",
    "vit": "vit.layers.1.mlp.activation_fn",
    "whisper": "model.encoder.layers.1.activation_fn",
}
NORM = {
    "gpt2": "transformer.h.1.ln_2",
    "llama": "model.layers.1.post_attention_layernorm",
    "bert": "bert.encoder.layer.1.attention.output.LayerNorm",
    "t5": "encoder.block.1.layer.1.layer_norm",
    "vit": "vit.layers.1.layernorm_after",
    "whisper": "model.encoder.layers.1.final_layer_norm",
    "mamba": "backbone.layers.1.norm",
}
LINEAR = {
    "gpt2": "transformer.h.1.mlp.c_fc",
    "llama": "model.layers.1.mlp.up_proj",
    "bert": "bert.encoder.layer.1.intermediate.dense",
    "t5": "encoder.block.1.layer.1.DenseReluDense.wo",
    "vit": "vit.layers.1.mlp.fc1",
    "whisper": "model.encoder.layers.1.fc1",
    "mamba": "backbone.layers.1.mixer.in_proj",
}
ATTN = {"gpt2": "transformer.h.1.attn", "llama": "model.layers.1.self_attn"}


def swap_act(name: str, model: nn.Module) -> None:
    path = ACT[name]
    parent, _, attr = path.rpartition(".")
    old = layer(model, path)
    tanh = "gelu_new" if type(old).__name__ != "NewGELUActivation" else "gelu"
    setattr(layer(model, parent), attr, ACT2FN[tanh])


def scale_norm(name: str, model: nn.Module) -> None:
    with torch.no_grad():
        layer(model, NORM[name]).weight.mul_(1.05)


def perturb(name: str, model: nn.Module) -> None:
    with torch.no_grad():
        w = layer(model, LINEAR[name.removesuffix("-big")]).weight
        w.add_(1e-3 * torch.randn(w.shape, generator=gen(7)))


def drop_mask(name: str, model: nn.Module) -> None:
    attn = layer(model, ATTN[name])
    original = attn.forward

    def forward(*args: Any, **kwargs: Any) -> Any:  # the bug: the padding mask is dropped
        kwargs["attention_mask"] = None
        return original(*args, **kwargs)

    attn.forward = forward  # type: ignore[method-assign]


def to_bf16(name: str, model: nn.Module) -> None:
    model.to(torch.bfloat16)


def valid_only(key: str, target: torch.Tensor, reference: torch.Tensor) -> Any:
    """compare=: left padding: compare the valid positions of [batch, seq, ...] values only."""
    _, mask = left_padded()
    if target.dim() >= 2 and tuple(target.shape[:2]) == tuple(mask.shape):
        valid = mask.bool()
        return target[valid], reference[valid]
    return target, reference


# -- the cases -----------------------------------------------------------------------------------


@dataclass
class Case:
    model: str
    feature: str
    change: str
    expect: str  # "pass" | "fail"
    where: str | None = None  # a substring of the first divergence's module path
    run: Callable[[str, nn.Module], Any] = forward
    target_attn: str = "sdpa"
    mutate: Callable[[str, nn.Module], None] | None = None
    wrap: Callable[[nn.Module], nn.Module] | None = None
    compare: Any = None
    verify_run: Callable[[str, nn.Module], Any] | None = None
    record_dtype: Any = None


def compiled(model: nn.Module) -> nn.Module:
    return torch.compile(model, backend="eager")  # type: ignore[return-value]


def cases() -> list[Case]:
    out: list[Case] = []
    for m in BUILD:
        out.append(Case(m, "forward", "none", "pass"))
        if m in ACT:
            out.append(Case(m, "forward", "gelu->tanh", "fail", ACT[m], mutate=swap_act))
        out.append(Case(m, "forward", "norm w x1.05", "fail", NORM[m], mutate=scale_norm))
        out.append(Case(m, "forward", "weight +1e-3", "fail", LINEAR[m], mutate=perturb))
    for m in ("gpt2", "llama", "bert", "vit", "whisper"):
        out.append(Case(m, "forward", "sdpa->eager", "pass", target_attn="eager"))
    for m in ("gpt2", "llama"):
        hs = lambda n, mod: forward(n, mod, output_hidden_states=True)  # noqa: E731
        out.append(Case(m, "hidden_states", "none", "pass", run=hs))
        out.append(Case(m, "hidden_states", "weight +1e-3", "fail", LINEAR[m], run=hs, mutate=perturb))
        out.append(Case(m, "left-pad", "none", "pass", run=padded_forward))
        out.append(
            Case(
                m,
                "left-pad",
                "sdpa->eager (compare=valid)",
                "pass",
                run=padded_forward,
                target_attn="eager",
                compare=valid_only,
            )
        )
        out.append(
            Case(
                m,
                "left-pad",
                "mask dropped in layer 1",
                "fail",
                ATTN[m],
                run=padded_forward,
                mutate=drop_mask,
            )
        )
        out.append(Case(m, "generate+DynamicCache", "none", "pass", run=generate))
        out.append(
            Case(m, "generate+DynamicCache", "gelu->tanh", "fail", ACT[m], run=generate, mutate=swap_act)
        )
        out.append(Case(m, "compile(eager)", "none", "pass", wrap=compiled))
        out.append(
            Case(m, "compile(eager)", "weight +1e-3", "fail", LINEAR[m], wrap=compiled, mutate=perturb)
        )
        out.append(Case(m, "train step", "none", "pass", run=train_step))
        out.append(Case(m, "train step", "gelu->tanh", "fail", ACT[m], run=train_step, mutate=swap_act))
        out.append(Case(m, "bf16 .to()", "none", "pass", mutate=to_bf16, record_dtype=torch.bfloat16))
        out.append(
            Case(
                m,
                "bf16 .to()",
                "norm w x1.05",
                "fail",
                NORM[m],
                record_dtype=torch.bfloat16,
                mutate=lambda n, mod: (to_bf16(n, mod), scale_norm(n, mod)),
            )
        )  # type: ignore[func-returns-value]
        out.append(Case(m, "autocast bf16", "none", "pass", run=autocast_forward))
        out.append(
            Case(m, "autocast bf16", "norm w x1.05", "fail", NORM[m], run=autocast_forward, mutate=scale_norm)
        )
    for m in ("bert", "t5", "vit"):
        out.append(
            Case(
                m,
                "train step" if m == "bert" else "hidden_states",
                "none",
                "pass",
                run=train_step
                if m == "bert"
                else (lambda n, mod: forward(n, mod, output_hidden_states=True)),
            )
        )
    # Added after the first run (expectations still written before running them):
    for m in ("gpt2", "llama"):
        # an fp32 recording verified on a bf16 target: the cast is named; numbers within bf16's
        # tolerance pass (with the limitation said), anything else is a false alarm
        out.append(Case(m, "fp32 rec -> bf16 target", "none", "pass", mutate=to_bf16))
        out.append(
            Case(
                m,
                "generate+DynamicCache",
                "sdpa->eager",
                "pass",
                run=generate,
                target_attn="eager",
                compare=None,
            )
        )
        out.append(
            Case(
                m,
                "generate+DynamicCache",
                "sdpa->eager (compare=valid)",
                "pass",
                run=generate,
                target_attn="eager",
                compare=valid_only,
            )
        )
        out.append(
            Case(
                m,
                "generate+DynamicCache",
                "mask dropped in layer 1",
                "fail",
                ATTN[m],
                run=generate,
                mutate=drop_mask,
            )
        )
        out.append(Case(m, "compile(eager)", "gelu->tanh", "fail", ACT[m], wrap=compiled, mutate=swap_act))
        out.append(Case(m, "train step", "weight +1e-3", "fail", LINEAR[m], run=train_step, mutate=perturb))
    for m in ("t5", "whisper"):
        out.append(Case(m, "generate", "none", "pass", run=seq2seq_generate))
        out.append(
            Case(m, "generate", "weight +1e-3", "fail", LINEAR[m], run=seq2seq_generate, mutate=perturb)
        )
    out.append(
        Case(
            "bert",
            "padding mask",
            "sdpa->eager (compare=valid)",
            "pass",
            run=bert_padded,
            target_attn="eager",
            compare=valid_only,
        )
    )
    out.append(Case("vit", "compile(eager)", "none", "pass", wrap=compiled))
    out.append(Case("mamba", "generate", "none", "pass", run=mamba_generate))
    # Added with the cast-as-a-whole rule (before running it): a real bug under a cast still fails.
    for m in ("gpt2", "llama"):
        out.append(
            Case(
                m,
                "fp32 rec -> bf16 target",
                "norm w x1.05",
                "fail",
                NORM[m],
                mutate=lambda n, mod: (to_bf16(n, mod), scale_norm(n, mod)),
            )
        )  # type: ignore[func-returns-value]
        out.append(Case(m, "fp32 rec -> autocast target", "none", "pass", verify_run=autocast_forward))
        out.append(
            Case(
                m,
                "fp32 rec -> autocast target",
                "norm w x1.05",
                "fail",
                NORM[m],
                verify_run=autocast_forward,
                mutate=scale_norm,
            )
        )
    # Round 3 (expectations written before running): gradient checkpointing in a training step
    # (modules re-run inside backward), inference_mode, return_dict=False, a bigger config.
    for m in ("gpt2", "llama"):
        out.append(Case(m, "train step + grad ckpt", "none", "pass", run=checkpointed_step))
        out.append(
            Case(
                m,
                "train step + grad ckpt",
                "gelu->tanh",
                "fail",
                ACT[m],
                run=checkpointed_step,
                mutate=swap_act,
            )
        )
        out.append(Case(m, "inference_mode", "none", "pass", run=inference_forward))
        out.append(
            Case(
                m, "inference_mode", "weight +1e-3", "fail", LINEAR[m], run=inference_forward, mutate=perturb
            )
        )
        out.append(Case(m, "return_dict=False", "none", "pass", run=tuple_forward))
        out.append(Case(m + "-big", "forward", "none", "pass"))
        out.append(Case(m + "-big", "forward", "sdpa->eager", "pass", target_attn="eager"))
        out.append(Case(m + "-big", "forward", "weight +1e-3", "fail", LINEAR[m], mutate=perturb))
    return out


def checkpointed_step(name: str, model: nn.Module) -> Any:
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})  # type: ignore[operator]
    return train_step(name, model)


def inference_forward(name: str, model: nn.Module) -> Any:
    with torch.inference_mode():
        return forward(name, model)


def tuple_forward(name: str, model: nn.Module) -> Any:
    return forward(name, model, return_dict=False)


def seq2seq_generate(name: str, model: nn.Module) -> Any:
    if name == "t5":
        return model.generate(input_ids=ids(), max_new_tokens=4, do_sample=False)
    feats = torch.randn(2, 16, 64, generator=gen())
    return model.generate(input_features=feats, max_new_tokens=4, do_sample=False)


def mamba_generate(name: str, model: nn.Module) -> Any:
    return model.generate(input_ids=ids(), max_new_tokens=4, do_sample=False)


def bert_padded(name: str, model: nn.Module) -> Any:
    input_ids, mask = left_padded()
    return model(input_ids=input_ids, attention_mask=mask)


def main() -> int:
    return run_cases(
        cases(),
        trial,
        lambda case: f"{case.model:8s} {case.feature:22s} {case.change}",
        width=70,
        detail_chars=200,
    )


def trial(case: Case, bundle: Path) -> tuple[str, str]:
    model = build(case.model)
    if case.record_dtype is not None:
        model.to(case.record_dtype)
    recorded = case.wrap(model) if case.wrap else model
    with envsnap.record(bundle, model=recorded, environment="none"):
        case.run(case.model, recorded)
    target = build(case.model, case.target_attn)
    if case.mutate:
        case.mutate(case.model, target)
    if case.wrap:
        target = case.wrap(target)
    with envsnap.verify(bundle, model=target, environment="none", compare=case.compare) as v:
        (case.verify_run or case.run)(case.model, target)
    report = v.report
    first = report.first_divergence
    said = f"{report.verdict}"
    if first is not None:
        said += f" @ {first.module}"
    elif report.reasons:
        said += f" ({report.reasons[0][:160]})"
    if case.expect == "pass":
        if report.verdict in ("pass", "pass-with-limitations"):
            return "ok", said
        if report.verdict == "slow":
            return "SLOW-ALARM", said + f" {report.reasons[:1]}"
        return "FALSE-ALARM", said + ("" if first is None else f" :: {first.summary[:300]}")
    if report.verdict != "fail":
        return "MISS", said + f" {report.limitations[:1]}"
    if first is None or case.where is None or case.where not in first.module:
        return "WRONG-LAYER", said + f" (expected {case.where}) :: {first.summary[:300] if first else ''}"
    return "ok", said


if __name__ == "__main__":
    sys.exit(main())
