"""
Cache eviction policies for long-sequence generation.

When the KV cache grows beyond a threshold, least-important tokens are evicted
to maintain bounded memory usage. Importance is determined by:
- attention_score: mean attention weight over recent steps
- recency: newer tokens are preferred
- magnitude: |K| norm as a proxy for information content
"""

from __future__ import annotations

from enum import Enum
from typing import Dict, List, Optional, Tuple

import torch


class EvictionPolicy(str, Enum):
    NONE = "none"
    LRU = "lru"
    ATTENTION = "attention"
    MAGNITUDE = "magnitude"
    HYBRID = "hybrid"


def select_tokens_to_evict(
    policy: EvictionPolicy,
    key_states: torch.Tensor,
    value_states: torch.Tensor,
    attention_scores: Optional[torch.Tensor] = None,
    token_ages: Optional[torch.Tensor] = None,
    max_tokens: int = 1024,
    eviction_ratio: float = 0.25,
    protected_recent: int = 64,
) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Select tokens to evict from the compressed prefix.

    Args:
        policy: Eviction strategy
        key_states: [B, H, S, D] key tensor
        value_states: [B, H, S, D] value tensor
        attention_scores: [S] per-token importance scores (optional)
        token_ages: [S] token ages in generation steps (optional)
        max_tokens: Maximum tokens to keep after eviction
        eviction_ratio: Fraction of eligible tokens to evict
        protected_recent: Number of most recent tokens to never evict

    Returns:
        (kept_keys, kept_values, kept_mask) — tensors with evicted tokens removed
    """
    B, H, S, D = key_states.shape

    if S <= max_tokens:
        return key_states, value_states, torch.ones(S, dtype=torch.bool, device=key_states.device)

    n_evict = min(int(S * eviction_ratio), S - max_tokens)
    if n_evict <= 0:
        return key_states, value_states, torch.ones(S, dtype=torch.bool, device=key_states.device)

    eligible = S - protected_recent
    if eligible <= 0:
        return key_states, value_states, torch.ones(S, dtype=torch.bool, device=key_states.device)

    n_evict_from_eligible = min(n_evict, eligible)

    if policy == EvictionPolicy.LRU:
        scores = _lru_scores(token_ages, eligible)
    elif policy == EvictionPolicy.ATTENTION:
        scores = _attention_scores(attention_scores, eligible)
    elif policy == EvictionPolicy.MAGNITUDE:
        scores = _magnitude_scores(key_states, eligible)
    elif policy == EvictionPolicy.HYBRID:
        scores = _hybrid_scores(key_states, attention_scores, token_ages, eligible)
    else:
        return key_states, value_states, torch.ones(S, dtype=torch.bool, device=key_states.device)

    evict_pos = torch.topk(scores, k=n_evict_from_eligible, largest=False).indices
    mask = torch.ones(S, dtype=torch.bool, device=key_states.device)
    mask[evict_pos] = False

    kept_keys = key_states[:, :, mask, :]
    kept_values = value_states[:, :, mask, :]
    return kept_keys, kept_values, mask


def _lru_scores(
    token_ages: Optional[torch.Tensor],
    eligible: int,
) -> torch.Tensor:
    if token_ages is not None and token_ages.numel() >= eligible:
        return token_ages[:eligible].float()
    return torch.arange(eligible, dtype=torch.float32)


def _attention_scores(
    attention_scores: Optional[torch.Tensor],
    eligible: int,
) -> torch.Tensor:
    if attention_scores is not None and attention_scores.numel() >= eligible:
        scores = attention_scores[:eligible].float()
        return -scores
    return torch.zeros(eligible, dtype=torch.float32)


def _magnitude_scores(
    key_states: torch.Tensor,
    eligible: int,
) -> torch.Tensor:
    magnitudes = key_states[:, :, :eligible, :].norm(dim=-1).mean(dim=(0, 1))
    return magnitudes.float()


def _hybrid_scores(
    key_states: torch.Tensor,
    attention_scores: Optional[torch.Tensor],
    token_ages: Optional[torch.Tensor],
    eligible: int,
) -> torch.Tensor:
    mag = key_states[:, :, :eligible, :].norm(dim=-1).mean(dim=(0, 1)).float()
    mag = (mag - mag.min()) / (mag.max() - mag.min() + 1e-8)

    if attention_scores is not None and attention_scores.numel() >= eligible:
        attn = attention_scores[:eligible].float()
        attn = (attn - attn.min()) / (attn.max() - attn.min() + 1e-8)
    else:
        attn = torch.ones(eligible, dtype=torch.float32) * 0.5

    if token_ages is not None and token_ages.numel() >= eligible:
        age = token_ages[:eligible].float()
        age = (age - age.min()) / (age.max() - age.min() + 1e-8)
    else:
        age = torch.arange(eligible, dtype=torch.float32) / max(1, eligible - 1)

    combined = 0.4 * mag + 0.4 * attn - 0.2 * age
    return combined
