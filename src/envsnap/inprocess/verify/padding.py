"""Padded positions are left out of the comparison (verify side, torch).

A batch of sequences of different lengths is padded, and the model is told which positions are
real by a ``[batch, seq]`` ``attention_mask`` (the Hugging Face convention: 1 real, 0 padding).
What a model computes *at* a padded position means nothing and depends on the attention
implementation: a query row whose keys are all masked (left padding under a causal mask) comes out
of sdpa and of eager attention as two different kinds of garbage. The trial on HF GPT-2 and Llama
(``generate()`` with left padding, sdpa → eager) failed on exactly those rows (704 of 2304
elements: 11 padded rows × 64) while every real position matched to 1e-7.

So when the recorded call took such a mask with padding in it, every value whose leading
dimensions are ``[batch, seq]`` is compared at the real positions only, as a user's
``compare=lambda k, t, r: (t[valid], r[valid])`` would. A bug that reaches real positions (a
dropped mask lets real queries attend to padding) still fails; ``verify(compare=...)`` replaces
this with the user's own choice.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

MASK_NAME = "attention_mask"


def padding_mask(inputs: Mapping[str, torch.Tensor], index: int) -> torch.Tensor | None:
    """The real positions (bool ``[batch, seq]``) of recorded top-level call ``index``, when it
    took a 2-D integer or bool ``attention_mask`` keyword argument with padding in it; else None."""
    mask = inputs.get(f"<input>#{index}/kwargs/{MASK_NAME}")
    if mask is None or mask.dim() != 2 or mask.dtype.is_floating_point or mask.is_complex():
        return None
    valid = mask != 0
    return None if bool(valid.all()) else valid


class RealPositions:
    """``compare=`` hook: the values shaped ``[batch, seq, ...]`` at the real positions only."""

    def __init__(self, valid: torch.Tensor) -> None:
        self.valid = valid
        self.masked = 0
        """Values that differed at padded positions, left out (the report says how many)."""

    def __call__(self, key: str, target: torch.Tensor, reference: torch.Tensor) -> Any:
        if target.dim() < 2 or tuple(target.shape[:2]) != tuple(self.valid.shape):
            return target, reference
        valid = self.valid.to(target.device)
        if target.dtype == reference.dtype and not torch.equal(target[~valid], reference[~valid]):
            self.masked += 1  # only worth a word when the padded positions did differ
        return target[valid], reference[valid]
