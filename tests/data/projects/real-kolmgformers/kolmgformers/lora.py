"""
kolmgformers/lora.py  v2.0.5-BETA
================================
LoRA (Low-Rank Adaptation) and advanced PEFT methods.

Changes in v2.0.5-BETA (bug fixes over v2.0.5):
  BUG FIX #L1 — DoRALinear: magnitude was initialized with norm(dim=0),
                giving one scalar per INPUT feature (shape 1 × in_features).
                The DoRA paper defines magnitude as the column (output-direction)
                norm: ‖W[:, j]‖ for each column j.  Weight shape is (out, in),
                so columns are along dim=1, giving shape (1 × in_features) — but
                that is the ROW norm of W^T, i.e., the OUTPUT norms.  The forward
                then divided adapted_w (out × in) by col_norm(dim=0) which is
                the per-INPUT-feature norm.  This is inconsistent with the paper
                which scales each output direction.
                Fix: initialize magnitude as norm(p=2, dim=1, keepdim=True)
                shape (out_features, 1), and divide col_norm along dim=1 in
                forward, matching the published DoRA formulation exactly.
  BUG FIX #L2 — TokenMerge.forward had `if not self.training` guard so
                merging was skipped during eval.  Token Merging is primarily an
                INFERENCE speedup — it should run at eval and optionally at
                training.  Guard changed to be training-opt-in via a flag.
                (This fix is in layers.py; noted here for changelog completeness.)
  BUG FIX #L3 — lora_parameter_count returned incorrect `total` when called
                before add_lora (all params trainable → trainable == total was
                correct, but after add_lora base params are frozen and total
                still counted them). No code change needed — the function was
                always correct; this entry clarifies the expected usage contract.

Features (unchanged from v2.0.5):
  Feature #41 — DoRA (Weight-Decomposed LoRA, Liu et al., 2024)
  Feature #42 — LoRA+ (different LRs for A and B, Hayou et al., 2024)
  Feature #43 — Quantized LoRA (QLoRA): LoRA on top of 4-bit base weights
  Feature #44 — Rank-stabilized LoRA (rsLoRA) scaling
"""

from __future__ import annotations

import math
import os
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F


__all__ = [
    "LoRAConfig",
    "LoRALinear",
    "DoRALinear",
    "add_lora",
    "apply_lora",   # alias for add_lora (used by FineTuner)
    "merge_lora",
    "save_lora",
    "load_lora",
    "lora_parameter_count",
]


class LoRAConfig:
    """
    Configuration for LoRA and its variants.

    Args:
        rank:           LoRA rank r. Recommended: 8, 16, 32, 64.
        alpha:          Scaling factor α. Typically set to rank.
        dropout:        Dropout rate on the LoRA path. 0.0 = disabled.
        target_modules: Module name substrings to apply LoRA to.
                        None = default (q/k/v/out projections).
        train_ffn:      Also apply LoRA to FFN gate/up/down projections.
        use_dora:       Feature #41 Use DoRA (weight-decomposed LoRA).
        rs_lora:        Feature #44 Rank-stabilized scaling (scale ∝ 1/√r).
        lora_plus_ratio: Feature #42 LR ratio for B vs A in LoRA+.
                        1.0 = same LR (standard LoRA).
    """

    def __init__(
        self,
        rank:            int                  = 16,
        alpha:           float                = 32.0,
        dropout:         float                = 0.05,
        target_modules:  Optional[list[str]]  = None,
        train_ffn:       bool                 = False,
        use_dora:        bool                 = False,
        rs_lora:         bool                 = False,
        lora_plus_ratio: float                = 1.0,
    ):
        self.rank            = rank
        self.alpha           = alpha
        self.dropout         = dropout
        self.use_dora        = use_dora
        self.rs_lora         = rs_lora
        self.lora_plus_ratio = lora_plus_ratio
        self.target_modules  = target_modules or [
            "q_proj", "k_proj", "v_proj", "out"
        ]
        if train_ffn:
            self.target_modules += ["gate", "up", "down"]

        self.scaling = alpha / (math.sqrt(rank) if rs_lora else rank)

    def __repr__(self) -> str:
        dora = ", DoRA" if self.use_dora else ""
        rsla = ", rsLoRA" if self.rs_lora else ""
        return (
            f"LoRAConfig(rank={self.rank}, alpha={self.alpha}, "
            f"dropout={self.dropout}{dora}{rsla})"
        )


class LoRALinear(nn.Module):
    """
    Standard LoRA Linear layer.

    Wraps an existing Linear with a low-rank decomposition:
        output = W·x + scaling · B·A·x

    W is frozen; only A and B are trained.  B is zero-initialized so the
    LoRA contribution starts at 0, preserving the original model's output.

    Feature #44 (rsLoRA): Uses scaling = α / √r instead of α / r,
    which stabilizes training at high ranks.

    Args:
        original: The frozen base Linear layer.
        rank:     LoRA rank.
        alpha:    Scaling factor.
        dropout:  Dropout on LoRA path.
        rs_lora:  If True, use rank-stabilized scaling.
    """

    def __init__(
        self,
        original: nn.Linear,
        rank:     int,
        alpha:    float,
        dropout:  float = 0.0,
        rs_lora:  bool  = False,
    ):
        super().__init__()
        self.original = original
        self.rank     = rank
        self.scaling  = alpha / (math.sqrt(rank) if rs_lora else rank)

        in_f  = original.in_features
        out_f = original.out_features

        self.lora_A  = nn.Linear(in_f,   rank, bias=False)
        self.lora_B  = nn.Linear(rank, out_f, bias=False)
        self.dropout = nn.Dropout(dropout) if dropout > 0.0 else nn.Identity()

        nn.init.kaiming_uniform_(self.lora_A.weight, a=math.sqrt(5))
        nn.init.zeros_(self.lora_B.weight)

        for p in self.original.parameters():
            p.requires_grad = False

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (
            self.original(x)
            + self.lora_B(self.lora_A(self.dropout(x))) * self.scaling
        )

    def merge(self) -> nn.Linear:
        """
        Merge LoRA weights into the base weight, return a plain Linear.

        Call this before saving for deployment (removes LoRA overhead).
        """
        merged_w = (
            self.original.weight.data
            + (self.lora_B.weight @ self.lora_A.weight) * self.scaling
        )
        new_lin = nn.Linear(
            self.original.in_features, self.original.out_features,
            bias=self.original.bias is not None,
            device=self.original.weight.device,
            dtype=self.original.weight.dtype,
        )
        new_lin.weight.data = merged_w
        if self.original.bias is not None:
            new_lin.bias.data = self.original.bias.data.clone()
        return new_lin

    def extra_repr(self) -> str:
        return (
            f"in={self.original.in_features}, out={self.original.out_features}, "
            f"rank={self.rank}, scaling={self.scaling:.4f}"
        )


class DoRALinear(LoRALinear):
    """
    Feature #41 — DoRA: Weight-Decomposed Low-Rank Adaptation (Liu et al., 2024).

    DoRA decomposes the pretrained weight into magnitude (‖w‖) and direction
    (w/‖w‖), then trains LoRA on the direction while learning the magnitude
    as a separate scalar parameter per output neuron.

    Mathematical form:
        W_dora = m ⊙ (W + ΔW) / ‖(W + ΔW)‖_col

    where m ∈ ℝ^{out_features} is a learnable per-row (per-output) magnitude.

    BUG FIX #L1: The original code initialized magnitude with
        norm(p=2, dim=0, keepdim=True)   →  shape (1, in_features)
    and divided adapted_w by col_norm(dim=0) — but "column norm" of an
    (out × in) weight matrix is the norm of each INPUT dimension, not each
    OUTPUT neuron.  The DoRA paper (Liu et al., 2024) defines:
        m_k = ‖W_k‖   for each output row k   (k ∈ [0, out_features))
    so magnitude should have shape (out_features, 1) and the column norm
    in the forward pass should be taken along dim=1 (across input features
    for each output neuron).  Fixed accordingly.

    Args:
        original: The frozen base Linear layer.
        rank:     LoRA rank.
        alpha:    Scaling factor.
        dropout:  Dropout on LoRA path.
        rs_lora:  If True, use rank-stabilized scaling.
    """

    def __init__(
        self,
        original: nn.Linear,
        rank:     int,
        alpha:    float,
        dropout:  float = 0.0,
        rs_lora:  bool  = False,
    ):
        super().__init__(original, rank, alpha, dropout, rs_lora)
        # BUG FIX #L1: per-ROW magnitude (one scalar per output neuron)
        # original.weight shape: (out_features, in_features)
        # norm along dim=1 → (out_features, 1) — correct per the paper
        magnitude = original.weight.data.norm(p=2, dim=1, keepdim=True)
        self.magnitude = nn.Parameter(magnitude.float())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Adapted weight: W + scaling × B×A
        lora_delta = (self.lora_B.weight @ self.lora_A.weight) * self.scaling
        adapted_w  = self.original.weight.data.float() + lora_delta.float()

        # BUG FIX #L1: normalize each OUTPUT row (dim=1), not each input column
        row_norm  = adapted_w.norm(p=2, dim=1, keepdim=True).clamp(min=1e-8)
        adapted_w = adapted_w / row_norm

        # Scale each output row by its learned magnitude
        adapted_w = (adapted_w * self.magnitude).to(x.dtype)

        return F.linear(self.dropout(x), adapted_w, self.original.bias)


def add_lora(
    model:  nn.Module,
    config: Optional[LoRAConfig] = None,
    **kwargs,
) -> nn.Module:
    """
    Add LoRA (or DoRA) to a model in-place.

    Wraps matching Linear layers with LoRALinear (or DoRALinear).
    All non-LoRA parameters are frozen.

    Usage::

        model = add_lora(model)                           # defaults
        model = add_lora(model, rank=32, train_ffn=True)  # kwargs
        model = add_lora(model, LoRAConfig(rank=64))      # full config
        model = add_lora(model, use_dora=True)            # DoRA

    Args:
        model:  Model to modify (any nn.Module).
        config: LoRAConfig. If None, built from kwargs.
        **kwargs: Passed to LoRAConfig constructor.

    Returns:
        Modified model (same object, in-place).
    """
    if config is None:
        config = LoRAConfig(**kwargs)

    replaced = 0
    for name, module in list(model.named_modules()):
        if not isinstance(module, nn.Linear):
            continue
        if not any(t in name for t in config.target_modules):
            continue

        parts  = name.split(".")
        parent = model
        for part in parts[:-1]:
            parent = getattr(parent, part)

        leaf_name = parts[-1]
        if config.use_dora:
            wrapped = DoRALinear(
                module, rank=config.rank, alpha=config.alpha,
                dropout=config.dropout, rs_lora=config.rs_lora,
            )
        else:
            wrapped = LoRALinear(
                module, rank=config.rank, alpha=config.alpha,
                dropout=config.dropout, rs_lora=config.rs_lora,
            )
        setattr(parent, leaf_name, wrapped)
        replaced += 1

    for name, param in model.named_parameters():
        if "lora_A" not in name and "lora_B" not in name and "magnitude" not in name:
            param.requires_grad = False

    trainable, total = lora_parameter_count(model)
    method = "DoRA" if config.use_dora else "LoRA"
    rslora = " (rsLoRA)" if config.rs_lora else ""
    print(
        f"[kolmgformers {method}{rslora}] {replaced} layers wrapped | "
        f"rank={config.rank} | "
        f"trainable: {trainable:,} / {total:,} "
        f"({100 * trainable / max(total, 1):.2f}%)"
    )
    return model


def merge_lora(model: nn.Module) -> nn.Module:
    """
    Merge all LoRA/DoRA layers into base weights for deployment.

    After merging, the model is equivalent to the fine-tuned model but
    with no LoRA overhead — inference speed is identical to the base model.

    Usage::

        model = merge_lora(model)
        model.save_pretrained("./merged_model")

    Args:
        model: Model with LoRA layers.

    Returns:
        Model with merged weights (in-place).
    """
    merged = 0
    for name, module in list(model.named_modules()):
        if not isinstance(module, LoRALinear):
            continue
        parts  = name.split(".")
        parent = model
        for part in parts[:-1]:
            parent = getattr(parent, part)
        setattr(parent, parts[-1], module.merge())
        merged += 1

    for param in model.parameters():
        param.requires_grad = True

    print(f"[kolmgformers LoRA] {merged} layers merged ✓")
    return model


def save_lora(model: nn.Module, directory: str) -> None:
    """
    Save only LoRA/DoRA weights (very small file).

    The saved file is typically only a few MB even for large models,
    making it easy to share fine-tuned adapters.

    Uses safetensors if available, otherwise .pt.

    Args:
        model:     Model with LoRA layers.
        directory: Output directory.
    """
    os.makedirs(directory, exist_ok=True)

    lora_state = {
        name: param
        for name, param in model.named_parameters()
        if "lora_A" in name or "lora_B" in name or "magnitude" in name
    }

    if not lora_state:
        print("[kolmgformers LoRA] Warning: no LoRA weights found.")
        return

    try:
        from safetensors.torch import save_file
        save_file(lora_state, os.path.join(directory, "lora_weights.safetensors"))
    except ImportError:
        torch.save(lora_state, os.path.join(directory, "lora_weights.pt"))

    size_mb = sum(p.numel() * p.element_size() for p in lora_state.values()) / 1e6
    print(f"[kolmgformers LoRA] Saved → {directory}  (~{size_mb:.1f} MB)")


def load_lora(model: nn.Module, directory: str) -> nn.Module:
    """
    Load saved LoRA/DoRA weights into a model.

    Note: Call add_lora(model) first, then load_lora(model, dir).

    Args:
        model:     Model with LoRA structure already added.
        directory: Directory containing lora_weights.safetensors or .pt.

    Returns:
        Model with loaded LoRA weights.
    """
    st_path = os.path.join(directory, "lora_weights.safetensors")
    pt_path = os.path.join(directory, "lora_weights.pt")

    if os.path.exists(st_path):
        try:
            from safetensors.torch import load_file
            state = load_file(st_path)
        except ImportError:
            state = torch.load(st_path, map_location="cpu", weights_only=True)
    elif os.path.exists(pt_path):
        state = torch.load(pt_path, map_location="cpu", weights_only=True)
    else:
        raise FileNotFoundError(f"No LoRA weights found in: {directory}")

    missing, unexpected = model.load_state_dict(state, strict=False)
    lora_missing = [k for k in missing if "lora" in k or "magnitude" in k]
    if lora_missing:
        print(f"[kolmgformers LoRA] Warning: {len(lora_missing)} LoRA weights not loaded.")
    print(f"[kolmgformers LoRA] Loaded ← {directory} ✓")
    return model


def lora_parameter_count(model: nn.Module) -> tuple[int, int]:
    """
    Return (trainable_params, total_params) for a LoRA model.

    Args:
        model: Model with LoRA layers.

    Returns:
        Tuple of (trainable, total) parameter counts.
    """
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    total     = sum(p.numel() for p in model.parameters())
    return trainable, total


# ── Alias (FineTuner uses apply_lora) ────────────────────────────────────────
apply_lora = add_lora
