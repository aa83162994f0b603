# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""
LoRA — Low-Rank Adaptation  (v0.0.3.2)
========================================
Parameter-efficient fine-tuning for Apeiron LM.

Usage
-----
>>> from apeiron_lm.lora import LoRAConfig, apply_lora, merge_lora, save_lora, load_lora
>>>
>>> model = ApeironLM.load("./pretrained")
>>>
>>> # Wrap model with LoRA adapters
>>> lora_cfg = LoRAConfig(r=8, alpha=16, dropout=0.1)
>>> apply_lora(model, lora_cfg)
>>>
>>> # Fine-tune — only LoRA params are trainable
>>> trainer = ApeironTrainer(model, dataset, args)
>>> trainer.train()
>>>
>>> # Save only LoRA weights (tiny file)
>>> save_lora(model, "./lora_weights.pt")
>>>
>>> # Load LoRA weights back into a base model
>>> model2 = ApeironLM.load("./pretrained")
>>> apply_lora(model2, lora_cfg)
>>> load_lora(model2, "./lora_weights.pt")
>>>
>>> # Merge into base weights (removes LoRA overhead)
>>> merge_lora(model)

Design
------
For each nn.Linear(d_in, d_out) targeted by LoRAConfig:

  y = x @ W.T + b          (frozen)
    + x @ A.T @ B.T * α/r   (trainable, rank-r)

  A: (r, d_in)   init ~ N(0, σ²)
  B: (d_out, r)  init = 0      ← so adapter starts as identity

Targeted modules (configurable):
  - ByteEncoder attention:  in_proj, out_proj
  - ByteEncoder FFN:        linear1, linear2
  - LatentExplorer:         diversity_proj
  - UnifiedLatentReasoner:  byte_proj

Everything else stays frozen.
"""

from __future__ import annotations

import math
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple, Union

import torch
import torch.nn as nn
import torch.nn.functional as F

logger = logging.getLogger(__name__)


# ---------------------------------------------------------------------------
# LoRAConfig
# ---------------------------------------------------------------------------

@dataclass
class LoRAConfig:
    """
    Configuration for LoRA adaptation.

    Parameters
    ----------
    r : int
        Rank of the low-rank decomposition.  Typical: 4–64.
    alpha : float
        Scaling factor.  Effective scale = alpha / r.
        Set alpha = r to keep scale = 1.
    dropout : float
        Dropout applied to the LoRA input before the A projection.
    target_modules : List[str]
        Substring matches for module names to apply LoRA to.
        Defaults to attention and FFN linear layers.
    bias : str
        "none"   — no bias in LoRA layers
        "all"    — all biases trainable
        "lora"   — only LoRA layer biases trainable
    """
    r:               int        = 8
    alpha:           float      = 16.0
    dropout:         float      = 0.0
    target_modules:  List[str]  = field(default_factory=lambda: [
        "in_proj", "out_proj", "linear1", "linear2"
    ])
    bias:            str        = "none"

    @property
    def scaling(self) -> float:
        return self.alpha / self.r


# ---------------------------------------------------------------------------
# LoRALinear — drop-in replacement for nn.Linear
# ---------------------------------------------------------------------------

class LoRALinear(nn.Module):
    """
    nn.Linear with a LoRA adapter.

    The base weight W is frozen.  Only A, B (and optionally bias) train.
    """

    def __init__(
        self,
        base:    nn.Linear,
        r:       int,
        alpha:   float,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        self.r       = r
        self.scaling = alpha / r
        self.d_in    = base.in_features
        self.d_out   = base.out_features

        # Frozen base
        self.weight = base.weight   # (d_out, d_in)
        self.bias   = base.bias

        # LoRA params
        self.lora_A  = nn.Parameter(torch.empty(r, self.d_in))
        self.lora_B  = nn.Parameter(torch.zeros(self.d_out, r))
        self.drop    = nn.Dropout(dropout) if dropout > 0 else None

        self._merged = False
        self._reset_lora()

    def _reset_lora(self) -> None:
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        nn.init.zeros_(self.lora_B)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        base_out = F.linear(x, self.weight, self.bias)
        if self._merged:
            return base_out
        lora_in  = self.drop(x) if self.drop is not None else x
        lora_out = F.linear(F.linear(lora_in, self.lora_A), self.lora_B) * self.scaling
        return base_out + lora_out

    def merge_weights(self) -> None:
        """Fold LoRA into base weight in-place. Removes LoRA overhead."""
        if self._merged:
            return
        with torch.no_grad():
            delta = (self.lora_B @ self.lora_A) * self.scaling   # (d_out, d_in)
            self.weight.data += delta
        self._merged = True

    def unmerge_weights(self) -> None:
        if not self._merged:
            return
        with torch.no_grad():
            delta = (self.lora_B @ self.lora_A) * self.scaling
            self.weight.data -= delta
        self._merged = False

    def extra_repr(self) -> str:
        return (
            f"d_in={self.d_in}, d_out={self.d_out}, "
            f"r={self.r}, scaling={self.scaling:.3f}, merged={self._merged}"
        )


# ---------------------------------------------------------------------------
# apply_lora
# ---------------------------------------------------------------------------

def apply_lora(
    model:   "ApeironLM",
    cfg:     LoRAConfig,
    verbose: bool = True,
) -> Dict[str, LoRALinear]:
    """
    Wrap targeted nn.Linear modules with LoRALinear adapters.

    After calling this:
    - Base parameters are frozen (requires_grad=False).
    - Only LoRA A, B matrices (and optionally biases) have requires_grad=True.

    Parameters
    ----------
    model : ApeironLM
    cfg : LoRAConfig
    verbose : bool

    Returns
    -------
    adapters : Dict[str, LoRALinear]
        Map from module name → LoRALinear.
    """
    # 1. Freeze ALL base parameters
    for p in model.parameters():
        p.requires_grad_(False)

    adapters: Dict[str, LoRALinear] = {}
    swapped:  List[str] = []

    # 2. Walk modules and swap targeted Linear layers
    for name, module in list(model.named_modules()):
        if not isinstance(module, nn.Linear):
            continue
        if not _matches_any(name, cfg.target_modules):
            continue
        if module.in_features < cfg.r or module.out_features < cfg.r:
            logger.debug("Skipping %s (too small for r=%d)", name, cfg.r)
            continue

        lora_linear = LoRALinear(module, r=cfg.r, alpha=cfg.alpha, dropout=cfg.dropout)
        _set_nested_attr(model, name, lora_linear)
        adapters[name] = lora_linear
        swapped.append(name)

    # 3. Bias trainability
    if cfg.bias == "all":
        for p in model.parameters():
            # Find bias parameters
            pass
        for name, module in model.named_modules():
            if hasattr(module, "bias") and module.bias is not None:
                module.bias.requires_grad_(True)
    elif cfg.bias == "lora":
        for ada in adapters.values():
            if ada.bias is not None:
                ada.bias.requires_grad_(True)
    # "none": leave all biases frozen

    # 4. Trainable count
    n_trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    n_total     = sum(p.numel() for p in model.parameters())

    if verbose:
        logger.info(
            "LoRA applied: %d modules wrapped  r=%d  α=%.1f  "
            "trainable=%d/%d (%.2f%%)",
            len(swapped), cfg.r, cfg.alpha,
            n_trainable, n_total, 100 * n_trainable / max(n_total, 1),
        )
        for s in swapped:
            logger.debug("  LoRA: %s", s)

    return adapters


# ---------------------------------------------------------------------------
# merge_lora / unmerge_lora
# ---------------------------------------------------------------------------

def merge_lora(model: "ApeironLM") -> int:
    """
    Fold all LoRA adapters into their base weights.

    After merging, the model is equivalent in computation to the fine-tuned
    model but has no LoRA overhead.  Inference is faster.

    Returns
    -------
    n_merged : int  — number of adapters merged
    """
    n = 0
    for module in model.modules():
        if isinstance(module, LoRALinear) and not module._merged:
            module.merge_weights()
            n += 1
    logger.info("LoRA: merged %d adapters", n)
    return n


def unmerge_lora(model: "ApeironLM") -> int:
    """Reverse merge_lora (to resume training)."""
    n = 0
    for module in model.modules():
        if isinstance(module, LoRALinear) and module._merged:
            module.unmerge_weights()
            n += 1
    logger.info("LoRA: unmerged %d adapters", n)
    return n


# ---------------------------------------------------------------------------
# save_lora / load_lora
# ---------------------------------------------------------------------------

def save_lora(
    model: "ApeironLM",
    path:  Union[str, Path],
) -> None:
    """
    Save only the LoRA adapter weights (very small file).

    Parameters
    ----------
    model : ApeironLM
    path : str or Path  — file path (e.g. "./lora.pt")
    """
    lora_state: Dict[str, torch.Tensor] = {}
    for name, module in model.named_modules():
        if isinstance(module, LoRALinear):
            lora_state[f"{name}.lora_A"] = module.lora_A.data.cpu()
            lora_state[f"{name}.lora_B"] = module.lora_B.data.cpu()
            if module.bias is not None and module.bias.requires_grad:
                lora_state[f"{name}.bias"] = module.bias.data.cpu()

    torch.save(lora_state, str(path))
    size_kb = Path(str(path)).stat().st_size / 1024
    logger.info("LoRA weights saved to %s  (%.1f KB)", path, size_kb)


def load_lora(
    model:  "ApeironLM",
    path:   Union[str, Path],
    strict: bool = True,
) -> None:
    """
    Load LoRA weights into a model that already has LoRA applied.

    Parameters
    ----------
    model : ApeironLM  (must have apply_lora already called)
    path : str or Path
    strict : bool  — if True, raise on missing keys
    """
    lora_state = torch.load(str(path), map_location="cpu", weights_only=True)
    missing: List[str] = []

    for name, module in model.named_modules():
        if not isinstance(module, LoRALinear):
            continue
        key_A = f"{name}.lora_A"
        key_B = f"{name}.lora_B"
        if key_A in lora_state and key_B in lora_state:
            with torch.no_grad():
                module.lora_A.data.copy_(lora_state[key_A].to(module.lora_A.device))
                module.lora_B.data.copy_(lora_state[key_B].to(module.lora_B.device))
            key_bias = f"{name}.bias"
            if key_bias in lora_state and module.bias is not None:
                module.bias.data.copy_(lora_state[key_bias].to(module.bias.device))
        else:
            missing.append(name)

    if missing and strict:
        raise RuntimeError(f"LoRA weights missing for: {missing}")
    if missing:
        logger.warning("LoRA: missing weights for %d modules (non-strict): %s", len(missing), missing)
    else:
        logger.info("LoRA: loaded weights from %s", path)


# ---------------------------------------------------------------------------
# lora_trainable_parameters
# ---------------------------------------------------------------------------

def lora_trainable_parameters(model: "ApeironLM") -> List[nn.Parameter]:
    """Return all trainable LoRA parameters for an optimiser."""
    return [p for p in model.parameters() if p.requires_grad]


def lora_parameter_count(model: "ApeironLM") -> Tuple[int, int]:
    """
    Returns
    -------
    (trainable, total)
    """
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    total     = sum(p.numel() for p in model.parameters())
    return trainable, total


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

def _matches_any(name: str, patterns: List[str]) -> bool:
    return any(p in name for p in patterns)


def _set_nested_attr(obj: nn.Module, name: str, value: nn.Module) -> None:
    """Set a nested attribute by dotted name, e.g. 'encoder.layers.0.linear1'."""
    parts = name.split(".")
    for part in parts[:-1]:
        if part.isdigit():
            obj = obj[int(part)]   # type: ignore[index]
        else:
            obj = getattr(obj, part)
    last = parts[-1]
    if last.isdigit():
        obj[int(last)] = value   # type: ignore[index]
    else:
        setattr(obj, last, value)
