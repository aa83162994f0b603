"""
Merge per-step extras (e.g. ``zerokv_heavy_hitter_scores``) into ``cache_kwargs`` for HF ``generate``.

Transformers builds ``cache_kwargs`` inside each attention block; this wrapper prepends your dict so
``ZeroKVNeoQuantizedLayer.update`` sees attention-style scores without forking model code.
"""

from __future__ import annotations

import types
from typing import Any, Callable, Dict, Optional

import torch

Provider = Callable[
    [int, torch.Tensor, torch.Tensor, Dict[str, Any]],
    Optional[Dict[str, Any]],
]


def attach_zerokv_heavy_hitter_provider(cache: Any, provider: Provider) -> None:
    """
    Wrap each layer's ``update`` so ``provider(layer_idx, key_states, value_states, cache_kwargs)``
    can return extra keys merged into ``cache_kwargs`` before the original update.

    ``provider`` may return ``None`` to leave kwargs unchanged.
    """
    layers = getattr(cache, "layers", None)
    if not layers:
        raise ValueError("cache must have a non-empty .layers list")

    for idx, layer in enumerate(layers):
        _wrap_layer_update(layer, idx, provider)


def _wrap_layer_update(layer: Any, layer_idx: int, provider: Provider) -> None:
    orig = layer.update

    def update_with_extras(
        self: Any,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        cache_kwargs: Optional[Dict[str, Any]] = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        ck: Dict[str, Any] = dict(cache_kwargs or {})
        extra = provider(layer_idx, key_states, value_states, ck)
        if extra:
            ck.update(extra)
        return orig(key_states, value_states, ck)

    layer.update = types.MethodType(update_with_extras, layer)
