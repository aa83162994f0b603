"""Low-rank residual adapters for frozen PyTorch layers."""

from __future__ import annotations

from typing import Any, cast

import torch


class LowRankConv1dAdapter(torch.nn.Module):
    """Wrap a frozen ``Conv1d`` with a trainable low-rank residual branch."""

    adapter_kind = "conv1d"

    def __init__(
        self,
        base: torch.nn.Conv1d,
        rank: int,
        scale: float = 1.0,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        if not isinstance(base, torch.nn.Conv1d):
            raise TypeError(f"base must be Conv1d, got {type(base)!r}")
        if rank < 1:
            raise ValueError("rank must be >= 1")
        if dropout < 0 or dropout >= 1:
            raise ValueError("dropout must be in the interval [0, 1)")

        self.base = base
        for parameter in self.base.parameters():
            parameter.requires_grad = False

        self.rank = int(rank)
        self.scale = float(scale)
        self.dropout = torch.nn.Dropout(dropout) if dropout > 0 else torch.nn.Identity()
        self.down = torch.nn.Conv1d(
            in_channels=base.in_channels,
            out_channels=self.rank,
            kernel_size=cast(tuple[int], base.kernel_size),
            stride=cast(tuple[int], base.stride),
            padding=cast(str | tuple[int], base.padding),
            dilation=cast(tuple[int], base.dilation),
            groups=base.groups,
            bias=False,
            padding_mode=base.padding_mode,
        )
        self.up = torch.nn.Conv1d(
            in_channels=self.rank,
            out_channels=base.out_channels,
            kernel_size=1,
            bias=False,
        )
        torch.nn.init.kaiming_uniform_(self.down.weight, a=5**0.5)
        torch.nn.init.zeros_(self.up.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the frozen base output plus the adapter residual."""
        return self.base(x) + self.scale * self.up(self.dropout(self.down(x)))

    def manifest(self) -> dict[str, Any]:
        """Return a serializable description used to validate reloads."""
        return {
            "kind": self.adapter_kind,
            "in_channels": self.base.in_channels,
            "out_channels": self.base.out_channels,
            "kernel_size": list(self.base.kernel_size),
            "stride": list(self.base.stride),
            "padding": list(self.base.padding),
            "dilation": list(self.base.dilation),
            "groups": self.base.groups,
            "rank": self.rank,
            "scale": self.scale,
        }


class LowRankLinearAdapter(torch.nn.Module):
    """Wrap a frozen ``Linear`` layer with a trainable low-rank residual branch."""

    adapter_kind = "linear"

    def __init__(
        self,
        base: torch.nn.Linear,
        rank: int,
        scale: float = 1.0,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        if not isinstance(base, torch.nn.Linear):
            raise TypeError(f"base must be Linear, got {type(base)!r}")
        if rank < 1:
            raise ValueError("rank must be >= 1")
        if dropout < 0 or dropout >= 1:
            raise ValueError("dropout must be in the interval [0, 1)")

        self.base = base
        for parameter in self.base.parameters():
            parameter.requires_grad = False

        self.rank = int(rank)
        self.scale = float(scale)
        self.dropout = torch.nn.Dropout(dropout) if dropout > 0 else torch.nn.Identity()
        self.down = torch.nn.Linear(base.in_features, self.rank, bias=False)
        self.up = torch.nn.Linear(self.rank, base.out_features, bias=False)
        torch.nn.init.kaiming_uniform_(self.down.weight, a=5**0.5)
        torch.nn.init.zeros_(self.up.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the frozen base output plus the adapter residual."""
        return self.base(x) + self.scale * self.up(self.dropout(self.down(x)))

    def manifest(self) -> dict[str, Any]:
        """Return a serializable description used to validate reloads."""
        return {
            "kind": self.adapter_kind,
            "in_features": self.base.in_features,
            "out_features": self.base.out_features,
            "rank": self.rank,
            "scale": self.scale,
        }


class CheriPostBlockAdapter(torch.nn.Module):
    """Wrap a frozen Cherimoya block with a post-block bottleneck adapter."""

    adapter_kind = "cheri_postblock"

    def __init__(
        self,
        base: torch.nn.Module,
        rank: int,
        scale: float = 1.0,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        n_filters = _get_cheri_n_filters(base)
        if rank < 1:
            raise ValueError("rank must be >= 1")
        if dropout < 0 or dropout >= 1:
            raise ValueError("dropout must be in the interval [0, 1)")

        self.base = base
        for parameter in self.base.parameters():
            parameter.requires_grad = False

        self.n_filters = int(n_filters)
        self.rank = int(rank)
        self.scale = float(scale)
        self.norm = torch.nn.LayerNorm(self.n_filters)
        self.down = torch.nn.Linear(self.n_filters, self.rank, bias=False)
        self.activation = torch.nn.GELU(approximate="tanh")
        self.dropout = torch.nn.Dropout(dropout) if dropout > 0 else torch.nn.Identity()
        self.up = torch.nn.Linear(self.rank, self.n_filters, bias=False)
        torch.nn.init.kaiming_uniform_(self.down.weight, a=5**0.5)
        torch.nn.init.zeros_(self.up.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the frozen block output plus a post-block residual."""
        y = self.base(x)
        residual = self.up(self.dropout(self.activation(self.down(self.norm(y)))))
        return y + self.scale * residual

    def manifest(self) -> dict[str, Any]:
        """Return a serializable description used to validate reloads."""
        return {
            "kind": self.adapter_kind,
            "n_filters": self.n_filters,
            "rank": self.rank,
            "scale": self.scale,
        }


class CheriParallelDepthwiseAdapter(torch.nn.Module):
    """Wrap a frozen Cherimoya block with a parallel dilated depthwise adapter."""

    adapter_kind = "cheri_parallel_depthwise"

    def __init__(
        self,
        base: torch.nn.Module,
        rank: int,
        scale: float = 1.0,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        n_filters = _get_cheri_n_filters(base)
        dilation = _get_cheri_dilation(base)
        if rank < 1:
            raise ValueError("rank must be >= 1")
        if dropout < 0 or dropout >= 1:
            raise ValueError("dropout must be in the interval [0, 1)")

        self.base = base
        for parameter in self.base.parameters():
            parameter.requires_grad = False

        self.n_filters = int(n_filters)
        self.dilation = int(dilation)
        self.rank = int(rank)
        self.scale = float(scale)
        self.norm = torch.nn.LayerNorm(self.n_filters)
        self.down = torch.nn.Linear(self.n_filters, self.rank, bias=False)
        self.depthwise = torch.nn.Conv1d(
            in_channels=self.rank,
            out_channels=self.rank,
            kernel_size=3,
            padding=self.dilation,
            dilation=self.dilation,
            groups=self.rank,
            bias=False,
        )
        self.activation = torch.nn.GELU(approximate="tanh")
        self.dropout = torch.nn.Dropout(dropout) if dropout > 0 else torch.nn.Identity()
        self.up = torch.nn.Linear(self.rank, self.n_filters, bias=False)
        torch.nn.init.kaiming_uniform_(self.down.weight, a=5**0.5)
        torch.nn.init.kaiming_uniform_(self.depthwise.weight, a=5**0.5)
        torch.nn.init.zeros_(self.up.weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the frozen block output plus a parallel spatial residual."""
        y = self.base(x)
        residual = self.down(self.norm(x))
        residual = self.depthwise(residual.transpose(1, 2)).transpose(1, 2)
        residual = self.up(self.dropout(self.activation(residual)))
        return y + self.scale * residual

    def manifest(self) -> dict[str, Any]:
        """Return a serializable description used to validate reloads."""
        return {
            "kind": self.adapter_kind,
            "n_filters": self.n_filters,
            "dilation": self.dilation,
            "rank": self.rank,
            "scale": self.scale,
        }


def _get_cheri_n_filters(base: torch.nn.Module) -> int:
    if not hasattr(base, "n_filters"):
        raise TypeError("Cherimoya block adapter base must expose an 'n_filters' attribute")
    n_filters = base.n_filters
    if not isinstance(n_filters, int) or n_filters < 1:
        raise TypeError("Cherimoya block adapter base has invalid 'n_filters'")
    return n_filters


def _get_cheri_dilation(base: torch.nn.Module) -> int:
    if not hasattr(base, "dilation"):
        raise TypeError("Cherimoya depthwise adapter base must expose a 'dilation' attribute")
    dilation = base.dilation
    if not isinstance(dilation, int) or dilation < 1:
        raise TypeError("Cherimoya depthwise adapter base has invalid 'dilation'")
    return dilation
