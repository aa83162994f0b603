# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""I/O utility functions for Apeiron LM  (v0.0.2)."""

from __future__ import annotations

from typing import Iterable, List, Optional, Union

import torch


def bytes_to_tensor(raw: bytes) -> torch.Tensor:
    """
    Convert a bytes object to a 1-D LongTensor of byte values.

    Parameters
    ----------
    raw : bytes

    Returns
    -------
    torch.Tensor  shape (len(raw),)  dtype long
    """
    return torch.tensor(list(raw), dtype=torch.long)


def tensor_to_bytes(t: torch.Tensor) -> bytes:
    """
    Convert a 1-D integer tensor to a bytes object.

    Values are clamped to [0, 255].

    Parameters
    ----------
    t : torch.Tensor

    Returns
    -------
    bytes
    """
    return bytes(t.clamp(0, 255).cpu().tolist())


def text_to_tensor(text: str, encoding: str = "utf-8") -> torch.Tensor:
    """
    UTF-8 encode a string and return a 1-D LongTensor.

    Parameters
    ----------
    text : str
    encoding : str

    Returns
    -------
    torch.Tensor  shape (len(encoded),)  dtype long
    """
    return bytes_to_tensor(text.encode(encoding))


def tensor_to_text(t: torch.Tensor, encoding: str = "utf-8") -> str:
    """
    Decode a byte tensor back to a string.

    Parameters
    ----------
    t : torch.Tensor
    encoding : str

    Returns
    -------
    str
    """
    return tensor_to_bytes(t).decode(encoding, errors="replace")


def pad_sequence_batch(
    sequences: List[torch.Tensor],
    pad_value: int = 0,
    max_len:   Optional[int] = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """
    Pad a list of 1-D tensors to equal length and return the padded batch and
    a boolean padding mask (True = padding position).

    Parameters
    ----------
    sequences : List[torch.Tensor]
        Each tensor is 1-D with dtype long.
    pad_value : int
    max_len : int or None
        If given, all sequences are padded/truncated to this length.

    Returns
    -------
    padded : torch.Tensor  shape (B, L)
    mask   : torch.Tensor  shape (B, L)  dtype bool  True = padding
    """
    lengths = [len(s) for s in sequences]
    L       = max_len if max_len is not None else max(lengths, default=1)
    B       = len(sequences)

    padded = torch.full((B, L), pad_value, dtype=torch.long)
    mask   = torch.ones((B, L), dtype=torch.bool)

    for i, seq in enumerate(sequences):
        end = min(len(seq), L)
        padded[i, :end] = seq[:end]
        mask[i, :end]   = False

    return padded, mask
