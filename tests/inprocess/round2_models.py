"""Real model code for the record/verify round-2 tests (issue 23), built in code on the CPU.

- ``GPT``: a GPT-2-style decoder (token + position embeddings, pre-LN blocks of causal
  self-attention through ``F.scaled_dot_product_attention`` and a GELU MLP, a tied-free LM head)
  with an optional ``KVCache``, a plain Python object like transformers' ``DynamicCache``: it can't
  be stored in a bundle, and it is mutated by every call.
- ``ConvNet``: a small CNN with BatchNorm (running stats and ``num_batches_tracked`` buffers).
- ``Wrapper``: a user wrapper holding the model as ``.module`` (the DDP/DataParallel layout).
- Variants a migration really produces: tanh GELU, a dropped causal mask, a KV-cache bug, a
  split-K matmul (the same sum in another order), a renamed refactor.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

VOCAB, WIDTH, HEADS, DEPTH, CONTEXT = 64, 32, 4, 2, 32


class KVCache:
    """Keys and values per layer, appended by each call (a DynamicCache-like custom class)."""

    def __init__(self) -> None:
        self.keys: list[torch.Tensor] = []
        self.values: list[torch.Tensor] = []
        self.scale_cached = 1.0
        """!= 1: the bug under test (cached keys come back slightly scaled)."""

    def update(self, layer: int, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if layer < len(self.keys):
            cached_k = self.keys[layer] * self.scale_cached
            self.keys[layer] = torch.cat([self.keys[layer], k], dim=2)
            self.values[layer] = torch.cat([self.values[layer], v], dim=2)
            return torch.cat([cached_k, k], dim=2), self.values[layer]
        self.keys.append(k)
        self.values.append(v)
        return k, v

    def length(self) -> int:
        return int(self.keys[0].shape[2]) if self.keys else 0


class Attention(nn.Module):
    def __init__(self, layer: int, causal: bool = True) -> None:
        super().__init__()
        self.layer = layer
        self.causal = causal
        self.c_attn = nn.Linear(WIDTH, 3 * WIDTH)
        self.c_proj = nn.Linear(WIDTH, WIDTH)

    def forward(self, x: torch.Tensor, cache: KVCache | None = None) -> torch.Tensor:
        batch, seq, _ = x.shape
        q, k, v = self.c_attn(x).split(WIDTH, dim=2)
        q, k, v = (t.view(batch, seq, HEADS, WIDTH // HEADS).transpose(1, 2) for t in (q, k, v))
        past = 0
        if cache is not None:
            past = cache.length() if self.layer >= len(cache.keys) else cache.keys[self.layer].shape[2]
            k, v = cache.update(self.layer, k, v)
        if self.causal:
            total = k.shape[2]
            mask = torch.ones(seq, total, dtype=torch.bool).tril(diagonal=total - seq)
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        else:
            y = F.scaled_dot_product_attention(q, k, v)
        del past
        out: torch.Tensor = self.c_proj(y.transpose(1, 2).reshape(batch, seq, WIDTH))
        return out


class MLP(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.c_fc = nn.Linear(WIDTH, 4 * WIDTH)
        self.gelu = nn.GELU(approximate=approximate)
        self.c_proj = nn.Linear(4 * WIDTH, WIDTH)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.c_proj(self.gelu(self.c_fc(x)))
        return out


class Block(nn.Module):
    def __init__(self, layer: int) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(WIDTH)
        self.attn = Attention(layer)
        self.ln_2 = nn.LayerNorm(WIDTH)
        self.mlp = MLP()

    def forward(self, x: torch.Tensor, cache: KVCache | None = None) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x), cache)
        out: torch.Tensor = x + self.mlp(self.ln_2(x))
        return out


class GPT(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.wte = nn.Embedding(VOCAB, WIDTH)
        self.wpe = nn.Embedding(CONTEXT, WIDTH)
        self.h = nn.ModuleList([Block(i) for i in range(DEPTH)])
        self.ln_f = nn.LayerNorm(WIDTH)
        self.lm_head = nn.Linear(WIDTH, VOCAB, bias=False)

    def forward(self, idx: torch.Tensor, cache: KVCache | None = None) -> torch.Tensor:
        start = cache.length() if cache is not None else 0
        positions = torch.arange(start, start + idx.shape[1])
        x = self.wte(idx) + self.wpe(positions)
        for block in self.h:
            x = block(x, cache)
        out: torch.Tensor = self.lm_head(self.ln_f(x))
        return out


def make_gpt(seed: int = 0) -> GPT:
    torch.manual_seed(seed)
    return GPT().eval()


def tokens(batch: int = 2, seq: int = 8, seed: int = 1) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(0, VOCAB, (batch, seq), generator=generator)


def tanh_gelu(gpt: GPT, layer: int) -> GPT:
    gpt.h[layer].mlp.gelu = nn.GELU(approximate="tanh")  # type: ignore[union-attr]
    return gpt


def no_causal_mask(gpt: GPT, layer: int) -> GPT:
    gpt.h[layer].attn.causal = False  # type: ignore[union-attr]
    return gpt


class RenamedBlock(nn.Module):
    """The same block after a rename refactor (ln_1 → norm1, attn → attention, ...)."""

    def __init__(self, layer: int) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(WIDTH)
        self.attention = Attention(layer)
        self.norm2 = nn.LayerNorm(WIDTH)
        self.feed_forward = MLP()

    def forward(self, x: torch.Tensor, cache: KVCache | None = None) -> torch.Tensor:
        x = x + self.attention(self.norm1(x), cache)
        out: torch.Tensor = x + self.feed_forward(self.norm2(x))
        return out


class RenamedGPT(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.token_embedding = nn.Embedding(VOCAB, WIDTH)
        self.position_embedding = nn.Embedding(CONTEXT, WIDTH)
        self.blocks = nn.ModuleList([RenamedBlock(i) for i in range(DEPTH)])
        self.final_norm = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, VOCAB, bias=False)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(idx.shape[1])
        x = self.token_embedding(idx) + self.position_embedding(positions)
        for block in self.blocks:
            x = block(x)
        out: torch.Tensor = self.head(self.final_norm(x))
        return out


def renamed_copy(gpt: GPT) -> RenamedGPT:
    """A RenamedGPT holding exactly ``gpt``'s weights (state dicts line up in order)."""
    renamed = RenamedGPT().eval()
    values = list(gpt.state_dict().values())
    renamed.load_state_dict(dict(zip(renamed.state_dict().keys(), values, strict=True)))
    return renamed


class Wrapper(nn.Module):
    """A DDP/DataParallel-layout wrapper: the model is ``self.module``."""

    def __init__(self, module: nn.Module) -> None:
        super().__init__()
        self.module = module

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)


class SplitKLinear(nn.Linear):
    """The same matmul, K split in two halves and summed (a split-K kernel's reordering)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        half = self.in_features // 2
        w = self.weight
        out = x[..., :half] @ w[:, :half].T
        out = out + x[..., half:] @ w[:, half:].T
        if self.bias is not None:
            out = out + self.bias
        return out


class WideHead(nn.Module):
    """Logits of realistic scale: a wide projection (K = 1024) to 4096 classes, ×10."""

    def __init__(self, split: bool = False) -> None:
        super().__init__()
        self.proj = (SplitKLinear if split else nn.Linear)(1024, 4096)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.proj(x) * 10
        return out


class ConvNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(8)
        self.drop = nn.Dropout(0.1)
        self.fc = nn.Linear(8, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        out: torch.Tensor = self.fc(self.drop(x.mean(dim=(2, 3))))
        return out


def images(batch: int = 4, seed: int = 2) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(batch, 3, 8, 8, generator=generator)


@dataclasses.dataclass
class Batch:
    """A plain dataclass input."""

    features: torch.Tensor
    scale: float = 1.0


@dataclasses.dataclass
class Output:
    """A plain dataclass output (like an HF ModelOutput without the dict base)."""

    logits: torch.Tensor
    hidden: torch.Tensor


class DataclassMLP(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.fc1 = nn.Linear(WIDTH, 2 * WIDTH)
        self.act = nn.GELU(approximate=approximate)
        self.fc2 = nn.Linear(2 * WIDTH, 8)

    def forward(self, batch: Batch) -> Output:
        hidden = self.act(self.fc1(batch.features * batch.scale))
        return Output(logits=self.fc2(hidden), hidden=hidden)


def rms(t: torch.Tensor) -> float:
    return math.sqrt(float((t.double() ** 2).mean()))


class FunctionalMLP(nn.Module):
    """An MLP whose GELU is a functional call in its own code (no module to hook): only the
    op-level origin can name it."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.c_fc = nn.Linear(WIDTH, 4 * WIDTH)
        self.c_proj = nn.Linear(4 * WIDTH, WIDTH)
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.c_proj(F.gelu(self.c_fc(x), approximate=self.approximate))
        return out


def functional_gpt(approximate: str = "none", layer: int = 1, seed: int = 0) -> GPT:
    """``make_gpt`` with block ``layer``'s MLP in functional form (same weights)."""
    gpt = make_gpt(seed)
    block = gpt.get_submodule(f"h.{layer}")
    new = FunctionalMLP(approximate)
    new.load_state_dict(block.get_submodule("mlp").state_dict())  # same keys: c_fc, c_proj
    block.mlp = new
    return gpt


class ManyOps(nn.Module):
    """A module whose own code runs more ATen ops than the op log keeps."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for _ in range(300):
            x = x + 1
        return x
