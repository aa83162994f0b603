"""
Capture per-layer attention weights for ZeroKV heavy-hitter ``cache_kwargs``.

HF decoder order: ``past_key_values.update`` runs **before** attention in a layer forward.
We therefore store scores at the **end** of each attention module forward and supply them on the
**next** call to ``cache.update`` for that layer (first step falls back to |K| norm).

For non-null weights, use **eager** attention (``config._attn_implementation = "eager"``); SDPA often returns
``attn_weights=None``. ``ZeroKVEngine`` sets this when ``zerokv_attention_heavy_hitter`` is enabled.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

import torch
from torch import nn


def _scores_from_attn_weights(attn_weights: Optional[torch.Tensor]) -> Optional[torch.Tensor]:
    if attn_weights is None or not torch.is_tensor(attn_weights):
        return None
    if attn_weights.dim() != 4:
        return None
    q = attn_weights.shape[-2]
    if q < 1:
        return None
    # (B, H, Q, K) -> last query row, mean over batch and heads
    row = attn_weights[:, :, q - 1, :].float().mean(dim=(0, 1))
    return row.detach()


_ATTENTION_MODULE_NAMES = frozenset(
    {
        "GPT2Attention",
        "LlamaAttention",
        "Qwen2Attention",
        "Qwen3Attention",
        "MistralAttention",
        "GemmaAttention",
        "Gemma2Attention",
        "Phi3Attention",
    }
)


class AttentionHHState:
    """Holds lagged per-layer score vectors consumed by ``heavy_hitter_bridge`` providers."""

    def __init__(self) -> None:
        self._scores: Dict[int, torch.Tensor] = {}

    def _set_scores(self, layer_idx: int, t: torch.Tensor) -> None:
        self._scores[int(layer_idx)] = t

    def make_provider(self) -> Callable[..., Optional[Dict[str, Any]]]:
        def provider(
            layer_idx: int,
            key_states: torch.Tensor,
            value_states: torch.Tensor,
            cache_kwargs: Dict[str, Any],
        ) -> Optional[Dict[str, Any]]:
            t = self._scores.get(int(layer_idx))
            if t is None or t.numel() == 0:
                return None
            return {"zerokv_heavy_hitter_scores": t.to(device=key_states.device, dtype=torch.float32)}

        return provider

    def clear(self) -> None:
        self._scores.clear()


def register_attention_hh_hooks(model: nn.Module, state: AttentionHHState) -> List[Any]:
    """
    Forward hooks on self-attention modules (GPT-2 / Llama / Qwen-style class names).
    Returns handle list; caller must ``remove()`` each after generation.
    """
    handles: List[Any] = []

    def _hook(layer_idx: int):
        def hook(_module: nn.Module, _inp: Any, out: Any) -> None:
            if not isinstance(out, tuple):
                return
            aw = None
            if len(out) >= 2:
                aw = out[1]
            t = _scores_from_attn_weights(aw)
            if t is not None:
                state._set_scores(layer_idx, t)

        return hook

    for _name, mod in model.named_modules():
        cls = mod.__class__.__name__
        if cls not in _ATTENTION_MODULE_NAMES:
            continue
        if getattr(mod, "is_cross_attention", False):
            continue
        idx = getattr(mod, "layer_idx", None)
        if idx is None:
            continue
        handles.append(mod.register_forward_hook(_hook(int(idx))))

    return handles


def remove_hooks(handles: List[Any]) -> None:
    for h in handles:
        try:
            h.remove()
        except Exception:
            pass
