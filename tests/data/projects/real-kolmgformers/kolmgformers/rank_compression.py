"""
RankCompression: Ordinal Weight Encoding
=========================================
From: "KOLMOGformers: Attention-Free Sequence Modeling via
Kolmogorov-Arnold Cumulative Context Representations" (Işık, 2026)

Core idea
---------
Trained model weights need not be stored as 32-bit floats.  Within each
small group of g consecutive parameters, only their *relative ordering*
(the argsort permutation σ_k) is retained.  A single shared lookup table
R_θ with g scalar entries reconstructs approximate weight values from
ordinal ranks:

    Ŵ = R_θ( σ(W) )

Storage cost per parameter: log₂(g!) / g  bits
  g=2 → 0.50 bits/param  (~64× vs float32)
  g=3 → 0.86 bits/param  (~37× vs float32)
  g=4 → 1.15 bits/param  (~28× vs float32)

Public API
----------
compress_model(model, group_size)
    Convert every nn.Linear weight in-place to RankCompressed form.
    Returns the (modified) model and a RankCompressionCodebook.

decompress_model(model, codebook)
    Reconstruct float weights from stored rank indices.

apply_rank_compression(model, group_size)
    Convenience wrapper: compress then immediately decompress so the
    model can run inference in standard float32.  Useful for evaluating
    quality of the round-trip without keeping the compact form.

RankCompressedLinear
    nn.Module drop-in for nn.Linear that stores weights as rank indices
    and reconstructs on each forward pass.

RankCompressionCodebook
    Holds the learned R_θ lookup table and all per-layer permutation
    tensors.  Can be saved / loaded with torch.save / torch.load.

RankCompressionConfig
    Hyperparameters (group_size, calibration strategy, etc.).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor


# ---------------------------------------------------------------------------
# Config
# ---------------------------------------------------------------------------

@dataclass
class RankCompressionConfig:
    group_size: int = 3
    """Number of parameters per compression group (g in the paper).
    Larger g → more compression but coarser reconstruction.
    Recommended: 3 (37× compression, good reconstruction)."""

    calibration_iters: int = 200
    """Number of L-BFGS steps when fitting R_θ to minimise ‖W − Ŵ‖²."""

    calibration_lr: float = 0.1
    """Learning rate for R_θ calibration."""

    init_strategy: str = "linspace"
    """How to initialise R_θ before calibration: 'linspace' | 'quantile'."""

    def compression_ratio(self) -> float:
        """Theoretical compression ratio relative to float32."""
        bits_per_param = math.log2(math.factorial(self.group_size)) / self.group_size
        return 32.0 / bits_per_param

    def bits_per_param(self) -> float:
        return math.log2(math.factorial(self.group_size)) / self.group_size


# ---------------------------------------------------------------------------
# Core maths
# ---------------------------------------------------------------------------

def _partition_into_groups(w_flat: Tensor, group_size: int) -> Tuple[Tensor, int]:
    """Pad w_flat so its length is divisible by group_size, return (padded, pad_len)."""
    N = w_flat.numel()
    remainder = N % group_size
    if remainder != 0:
        pad = group_size - remainder
        w_flat = F.pad(w_flat, (0, pad))
    else:
        pad = 0
    return w_flat, pad


def compute_rank_indices(w: Tensor, group_size: int) -> Tuple[Tensor, int, torch.Size]:
    """
    Convert weight tensor w into integer rank indices.

    Returns
    -------
    sigma : LongTensor of shape (K, group_size)
        σ_k = argsort of each group, values in {0, …, group_size-1}.
    pad   : int
        Number of padding elements appended to make N divisible by g.
    orig_shape : torch.Size
        Original shape of w, needed to unpad on reconstruction.
    """
    orig_shape = w.shape
    w_flat, pad = _partition_into_groups(w.detach().float().reshape(-1), group_size)
    K = w_flat.numel() // group_size
    groups = w_flat.reshape(K, group_size)          # (K, g)
    sigma = torch.argsort(groups, dim=-1).to(torch.int16)  # (K, g)  int16 saves memory
    return sigma, pad, orig_shape


def reconstruct_from_ranks(
    sigma: Tensor,
    R_theta: Tensor,
    pad: int,
    orig_shape: torch.Size,
) -> Tensor:
    """
    Reconstruct weight tensor from rank indices and shared lookup table R_θ.

    Gradient flow fix (v0.1.1)
    --------------------------
    Naive integer indexing ``R_theta[sigma]`` has zero gradient everywhere.
    We use a Straight-Through Estimator (STE): forward pass does the hard
    lookup; backward pass routes gradients through a differentiable soft
    one-hot weighted sum over R_theta.

        w_hat = hard + (soft - soft.detach())
              = hard                      (forward)
        ∂w_hat/∂R_theta = ∂soft/∂R_theta (backward)

    Parameters
    ----------
    sigma    : (K, g) int tensor of rank indices
    R_theta  : (g,)   float tensor — shared reconstruction values
    pad      : padding applied during encode
    orig_shape : original weight shape

    Returns
    -------
    Ŵ : float tensor of shape orig_shape, differentiable w.r.t. R_theta
    """
    g = R_theta.shape[0]
    sigma_long = sigma.long()                               # (K, g)

    # Hard lookup — correct values, no gradient
    hard = R_theta[sigma_long]                              # (K, g)

    # Soft lookup via one-hot — differentiable w.r.t. R_theta
    one_hot = F.one_hot(sigma_long, num_classes=g).float()  # (K, g, g)
    soft = (one_hot * R_theta).sum(dim=-1)                  # (K, g)

    # STE: forward = hard, backward = soft
    w_hat = hard + (soft - soft.detach())                   # (K, g)

    w_hat = w_hat.reshape(-1)
    if pad > 0:
        w_hat = w_hat[:-pad]
    return w_hat.reshape(orig_shape)


def fit_R_theta(
    w: Tensor,
    group_size: int,
    iters: int = 200,
    lr: float = 0.1,
    init_strategy: str = "linspace",
) -> Tuple[Tensor, Tensor, int, torch.Size]:
    """
    Fit the shared reconstruction function R_θ to minimise ‖W − Ŵ‖².

    The optimisation is over the g scalar values of R_θ only.
    Rank indices σ are fixed (computed once from w).

    Returns
    -------
    R_theta  : (g,) fitted lookup table
    sigma    : (K, g) rank index tensor
    pad      : padding length
    orig_shape : original shape of w
    """
    sigma, pad, orig_shape = compute_rank_indices(w, group_size)

    # Initialise R_θ
    w_flat = w.detach().float().reshape(-1)
    if init_strategy == "quantile":
        quantiles = torch.linspace(0.0, 1.0, group_size + 2)[1:-1]
        init_vals = torch.quantile(w_flat, quantiles.to(w_flat.device))
    else:  # linspace between min and max
        init_vals = torch.linspace(w_flat.min().item(), w_flat.max().item(), group_size)

    R_theta = nn.Parameter(init_vals.clone())
    optimiser = torch.optim.LBFGS(
        [R_theta], lr=lr, max_iter=20, line_search_fn="strong_wolfe"
    )

    sigma_long = sigma.long()

    def closure():
        optimiser.zero_grad()
        w_hat = reconstruct_from_ranks(sigma_long, R_theta, pad, orig_shape)
        loss = F.mse_loss(w_hat, w.detach().float())
        loss.backward()
        return loss

    outer_iters = max(1, iters // 20)
    for _ in range(outer_iters):
        optimiser.step(closure)

    return R_theta.detach(), sigma, pad, orig_shape


# ---------------------------------------------------------------------------
# Codebook (stores all per-layer data + shared R_θ)
# ---------------------------------------------------------------------------

@dataclass
class RankCompressionCodebook:
    """
    Stores everything needed to reconstruct a compressed model.

    Attributes
    ----------
    R_theta : Tensor of shape (group_size,)
        Shared reconstruction lookup table, global across all layers.
    layers  : dict mapping parameter name → (sigma, pad, orig_shape)
    config  : RankCompressionConfig
    """
    R_theta: Tensor
    layers: Dict[str, Tuple[Tensor, int, torch.Size]]
    config: RankCompressionConfig

    def compression_stats(self) -> Dict[str, float]:
        total_params = sum(
            math.prod(shape) for _, pad, shape in self.layers.values()
        )
        g = self.config.group_size
        bits_per_param = math.log2(math.factorial(g)) / g
        compressed_bits = total_params * bits_per_param
        float32_bits = total_params * 32
        return {
            "total_params": total_params,
            "group_size": g,
            "bits_per_param": bits_per_param,
            "compressed_mb": compressed_bits / 8 / 1e6,
            "float32_mb": float32_bits / 8 / 1e6,
            "compression_ratio": float32_bits / compressed_bits,
        }

    def print_stats(self):
        s = self.compression_stats()
        print(f"RankCompression stats (g={s['group_size']})")
        print(f"  Parameters compressed : {int(s['total_params']):,}")
        print(f"  Bits per parameter    : {s['bits_per_param']:.2f}")
        print(f"  Compressed size       : {s['compressed_mb']:.2f} MB")
        print(f"  Float32 size          : {s['float32_mb']:.2f} MB")
        print(f"  Compression ratio     : {s['compression_ratio']:.1f}×")

    def save(self, path: str):
        torch.save({"R_theta": self.R_theta, "layers": self.layers,
                    "config": self.config}, path)

    @classmethod
    def load(cls, path: str, map_location="cpu") -> "RankCompressionCodebook":
        d = torch.load(path, map_location=map_location, weights_only=False)
        return cls(**d)


# ---------------------------------------------------------------------------
# compress_model / decompress_model
# ---------------------------------------------------------------------------

def compress_model(
    model: nn.Module,
    config: Optional[RankCompressionConfig] = None,
) -> Tuple[nn.Module, RankCompressionCodebook]:
    """
    Compress all nn.Linear weight matrices in *model* using RankCompression.

    The weights are replaced with their reconstructed (Ŵ) approximations
    in-place so the model can still run forward passes.  The codebook
    retains the compact sigma tensors for storage / serialisation.

    Parameters
    ----------
    model  : any nn.Module (typically KOLMOGformerForCausalLM)
    config : RankCompressionConfig (uses defaults if None)

    Returns
    -------
    model    : the same model with weights replaced by Ŵ
    codebook : RankCompressionCodebook for saving / analysis
    """
    if config is None:
        config = RankCompressionConfig()

    g = config.group_size
    all_weights: List[Tensor] = []
    param_names: List[str] = []

    # Collect all linear weight matrices
    for name, module in model.named_modules():
        if isinstance(module, nn.Linear):
            all_weights.append(module.weight.detach().float())
            param_names.append(name + ".weight")

    if not all_weights:
        raise ValueError("No nn.Linear layers found in model.")

    # Fit a single global R_θ across all weights concatenated
    all_flat = torch.cat([w.reshape(-1) for w in all_weights])
    R_theta, _, _, _ = fit_R_theta(
        all_flat,
        group_size=g,
        iters=config.calibration_iters,
        lr=config.calibration_lr,
        init_strategy=config.init_strategy,
    )

    # Encode each layer and replace weights with reconstructions
    layer_data: Dict[str, Tuple[Tensor, int, torch.Size]] = {}
    for name, w in zip(param_names, all_weights):
        sigma, pad, orig_shape = compute_rank_indices(w, g)
        w_hat = reconstruct_from_ranks(sigma, R_theta, pad, orig_shape)
        layer_data[name] = (sigma.cpu(), pad, orig_shape)

        # Write reconstructed weights back into the model
        parts = name.split(".")
        module = model
        for part in parts[:-1]:
            module = getattr(module, part)
        with torch.no_grad():
            getattr(module, parts[-1]).copy_(w_hat.to(getattr(module, parts[-1]).dtype))

    codebook = RankCompressionCodebook(
        R_theta=R_theta.cpu(),
        layers=layer_data,
        config=config,
    )
    return model, codebook


def decompress_model(
    model: nn.Module,
    codebook: RankCompressionCodebook,
) -> nn.Module:
    """
    Reconstruct float32 weights from a saved codebook and write them into
    *model* in-place.  Useful when loading a compressed checkpoint.

    Parameters
    ----------
    model    : nn.Module with the correct architecture (weights may be random)
    codebook : RankCompressionCodebook previously produced by compress_model

    Returns
    -------
    model with reconstructed weights
    """
    R_theta = codebook.R_theta
    for name, (sigma, pad, orig_shape) in codebook.layers.items():
        w_hat = reconstruct_from_ranks(sigma, R_theta, pad, orig_shape)
        parts = name.split(".")
        module = model
        for part in parts[:-1]:
            module = getattr(module, part)
        with torch.no_grad():
            getattr(module, parts[-1]).copy_(w_hat.to(getattr(module, parts[-1]).dtype))
    return model


def apply_rank_compression(
    model: nn.Module,
    group_size: int = 3,
    calibration_iters: int = 200,
) -> Tuple[nn.Module, RankCompressionCodebook]:
    """
    Convenience function: compress then immediately decompress so the model
    runs in standard float32 with ordinal-reconstructed weights.

    Equivalent to:
        model, cb = compress_model(model, config)
        model = decompress_model(model, cb)

    Returns both the updated model and the codebook.
    """
    config = RankCompressionConfig(
        group_size=group_size,
        calibration_iters=calibration_iters,
    )
    model, codebook = compress_model(model, config)
    return model, codebook


# ---------------------------------------------------------------------------
# RankCompressedLinear — drop-in module that decompresses on forward()
# ---------------------------------------------------------------------------

class RankCompressedLinear(nn.Module):
    """
    Drop-in replacement for nn.Linear that stores weights as rank indices
    and reconstructs them on every forward pass via a shared R_θ.

    This is the "live" version where compression is part of the compute
    graph.  For a post-training static compression, prefer compress_model().

    Parameters
    ----------
    in_features, out_features, bias : same as nn.Linear
    group_size : g from the paper (default 3)
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        group_size: int = 3,
    ):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.group_size = group_size
        N = in_features * out_features

        # Pad so N is divisible by group_size
        remainder = N % group_size
        self._pad = (group_size - remainder) if remainder != 0 else 0
        N_padded = N + self._pad
        K = N_padded // group_size

        # Stored as int16 rank indices — never updated by gradient
        self.register_buffer(
            "sigma", torch.zeros(K, group_size, dtype=torch.int16)
        )
        # Shared lookup table: the only learned parameter
        self.R_theta = nn.Parameter(torch.linspace(-0.02, 0.02, group_size))
        self._orig_shape = torch.Size([out_features, in_features])

        if bias:
            self.bias = nn.Parameter(torch.zeros(out_features))
        else:
            self.bias = None

    @torch.no_grad()
    def init_from_weight(self, weight: Tensor):
        """Initialise sigma and R_theta from a pre-trained weight tensor."""
        R_theta, sigma, pad, orig_shape = fit_R_theta(
            weight, self.group_size, iters=200
        )
        self.sigma.copy_(sigma)
        self.R_theta.data.copy_(R_theta)
        self._pad = pad
        self._orig_shape = orig_shape

    def get_weight(self) -> Tensor:
        return reconstruct_from_ranks(
            self.sigma, self.R_theta, self._pad, self._orig_shape
        ).to(self.R_theta.dtype)

    def forward(self, x: Tensor) -> Tensor:
        return F.linear(x, self.get_weight(), self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, "
                f"out_features={self.out_features}, "
                f"group_size={self.group_size}, "
                f"bias={self.bias is not None}")

    @classmethod
    def from_linear(cls, linear: nn.Linear, group_size: int = 3) -> "RankCompressedLinear":
        """Convert an existing nn.Linear to RankCompressedLinear."""
        rc = cls(
            linear.in_features,
            linear.out_features,
            bias=linear.bias is not None,
            group_size=group_size,
        )
        rc.init_from_weight(linear.weight)
        if linear.bias is not None:
            rc.bias.data.copy_(linear.bias.data)
        return rc
