"""Cut-Cross-Entropy loss implementation.

Uses Apple's cut-cross-entropy package for memory-efficient linear cross entropy,
with automatic precision adaptation and seamless fallback to chunked linear cross entropy.
"""

from typing import Optional, Union, Literal
import torch
import torch.nn as nn
import torch.nn.functional as F

try:
    import cut_cross_entropy
    from cut_cross_entropy import linear_cross_entropy as cce_linear_cross_entropy
    from cut_cross_entropy.linear_cross_entropy import LinearCrossEntropyImpl
    HAS_CCE = True
except (ImportError, Exception):
    HAS_CCE = False
    cce_linear_cross_entropy = None
    LinearCrossEntropyImpl = None


def chunked_linear_cross_entropy(
    e: torch.Tensor,
    c: torch.Tensor,
    targets: torch.Tensor,
    ignore_index: int = -100,
    reduction: str = "mean",
    shift: bool = True,
    chunk_size: int = 1024,
) -> torch.Tensor:
    """Computes linear cross-entropy in chunks along the token dimension.

    Avoids allocating the full (Batch, SeqLen, Vocab) tensor in memory, saving
    several gigabytes of VRAM/RAM during training while running on any device.
    """
    if shift:
        e = e[..., :-1, :].contiguous()
        targets = targets[..., 1:].contiguous()

    e_flat = e.flatten(0, -2)  # (N, D)
    targets_flat = targets.flatten()  # (N,)

    n_tokens = e_flat.size(0)
    total_loss = torch.tensor(0.0, device=e.device, dtype=torch.float32)
    total_weight = torch.tensor(0.0, device=e.device, dtype=torch.float32)

    for i in range(0, n_tokens, chunk_size):
        chunk_e = e_flat[i : i + chunk_size]
        chunk_targets = targets_flat[i : i + chunk_size]

        valid_mask = chunk_targets != ignore_index
        if not valid_mask.any():
            continue

        chunk_logits = F.linear(chunk_e, c).float()
        chunk_loss = F.cross_entropy(
            chunk_logits,
            chunk_targets,
            ignore_index=ignore_index,
            reduction="sum",
        )
        total_loss = total_loss + chunk_loss
        total_weight = total_weight + valid_mask.sum()

    if reduction == "mean":
        return total_loss / total_weight.clamp(min=1.0)
    elif reduction == "sum":
        return total_loss
    return total_loss


def compute_cut_cross_entropy(
    hidden_states: torch.Tensor,
    classifier_weight: torch.Tensor,
    targets: torch.Tensor,
    ignore_index: int = -100,
    softcap: Optional[float] = None,
    reduction: str = "mean",
    shift: bool = True,
    impl: Union[str, Literal["auto", "cce", "torch_compile", "chunked"]] = "auto",
) -> torch.Tensor:
    """Dispatches to cut-cross-entropy or chunked linear cross-entropy.

    Ensures hidden_states are in bf16 or fp16 if calling CCE, as required
    by Apple's Triton backward kernel.
    """
    if impl == "chunked" or not HAS_CCE:
        chosen_impl = "chunked"
    elif impl == "auto":
        if torch.cuda.is_available() and hidden_states.is_cuda:
            chosen_impl = "cce"
        else:
            chosen_impl = "chunked"
    else:
        chosen_impl = impl

    if chosen_impl == "cce":
        # Apple cut-cross-entropy's backward kernel strictly requires embeddings to be bf16 or fp16
        if hidden_states.dtype not in (torch.float16, torch.bfloat16):
            if torch.cuda.is_available() and torch.cuda.is_bf16_supported():
                hidden_states = hidden_states.to(torch.bfloat16)
            else:
                hidden_states = hidden_states.to(torch.float16)

        try:
            return cce_linear_cross_entropy(
                hidden_states,
                classifier_weight,
                targets,
                ignore_index=ignore_index,
                softcap=softcap,
                reduction=reduction,
                shift=shift,
                impl="cce",
            )
        except Exception:
            return chunked_linear_cross_entropy(
                hidden_states,
                classifier_weight,
                targets,
                ignore_index=ignore_index,
                reduction=reduction,
                shift=shift,
            )

    if chosen_impl == "torch_compile":
        try:
            return cce_linear_cross_entropy(
                hidden_states,
                classifier_weight,
                targets,
                ignore_index=ignore_index,
                softcap=softcap,
                reduction=reduction,
                shift=shift,
                impl="torch_compile",
            )
        except Exception:
            return chunked_linear_cross_entropy(
                hidden_states,
                classifier_weight,
                targets,
                ignore_index=ignore_index,
                reduction=reduction,
                shift=shift,
            )

    return chunked_linear_cross_entropy(
        hidden_states,
        classifier_weight,
        targets,
        ignore_index=ignore_index,
        reduction=reduction,
        shift=shift,
    )


class CutCrossEntropyLoss(nn.Module):
    """PyTorch module wrapper for Cut-Cross-Entropy loss."""

    def __init__(
        self,
        ignore_index: int = -100,
        softcap: Optional[float] = None,
        reduction: str = "mean",
        shift: bool = True,
        impl: str = "auto",
    ):
        super().__init__()
        self.ignore_index = ignore_index
        self.softcap = softcap
        self.reduction = reduction
        self.shift = shift
        self.impl = impl

    def forward(
        self,
        hidden_states: torch.Tensor,
        classifier_weight: torch.Tensor,
        targets: torch.Tensor,
    ) -> torch.Tensor:
        return compute_cut_cross_entropy(
            hidden_states=hidden_states,
            classifier_weight=classifier_weight,
            targets=targets,
            ignore_index=self.ignore_index,
            softcap=self.softcap,
            reduction=self.reduction,
            shift=self.shift,
            impl=self.impl,
        )
