"""Small real models for the record/verify tests: a residual MLP stack, and ways to change one layer.

Each change is one a migration really makes: a GELU implementation (exact erf vs the tanh
approximation some kernels use), a LayerNorm epsilon, bf16 autocast in one block.
"""

from __future__ import annotations

import torch
from torch import nn

WIDTH, BATCH, SEQ = 16, 2, 6


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(WIDTH)
        self.fc1 = nn.Linear(WIDTH, 4 * WIDTH)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(4 * WIDTH, WIDTH)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = x + self.fc2(self.act(self.fc1(self.norm(x))))
        return out


class AutocastBlock(Block):
    """The same block, run under bf16 autocast (what a port to a bf16-first device may do)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return super().forward(x)


class Net(nn.Module):
    def __init__(self, depth: int = 3) -> None:
        super().__init__()
        self.embed = nn.Linear(WIDTH, WIDTH)
        self.layers = nn.ModuleList([Block() for _ in range(depth)])
        self.head = nn.Linear(WIDTH, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.embed(x)
        for layer in self.layers:
            x = layer(x)
        out: torch.Tensor = self.head(x)
        return out


def make_net(seed: int = 0) -> Net:
    torch.manual_seed(seed)
    return Net().eval()


def make_input(seed: int = 1) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(BATCH, SEQ, WIDTH, generator=generator)


def with_tanh_gelu(net: Net, index: int) -> Net:
    net.layers[index].act = nn.GELU(approximate="tanh")
    return net


def with_layernorm_eps(net: Net, index: int, eps: float) -> Net:
    old: nn.Module = net.layers[index].norm  # type: ignore[assignment]
    new = nn.LayerNorm(WIDTH, eps=eps)
    new.load_state_dict(old.state_dict())
    net.layers[index].norm = new
    return net


def with_autocast_block(net: Net, index: int) -> Net:
    block = AutocastBlock()
    old: nn.Module = net.layers[index]
    block.load_state_dict(old.state_dict())
    net.layers[index] = block
    return net
