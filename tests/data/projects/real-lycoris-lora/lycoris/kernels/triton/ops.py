"""Uniform op set of the Triton backend (mirrored by ..tilelang.ops)."""

from .boft.apply import boft_bwd, boft_fwd
from .dora import dora_bwd, dora_fwd
from .ia3 import ia3_bwd, ia3_fwd
from .loha import loha_bypass_bwd, loha_bypass_fwd, loha_merge_bwd
from .lokr import (
    lokr_bypass_bwd,
    lokr_bypass_fwd,
    lokr_full_merge_bwd,
    lokr_full_merge_fwd,
    lokr_merge_bwd,
    lokr_merge_fwd,
)
from .lora import lora_bypass_bwd, lora_bypass_fwd, lora_merge_bwd, lora_tucker_fwd
from .merge.add import add_scaled
from .merge.modes import lora_merge_fwd
from .oft.apply import oft_bwd, oft_fwd

__all__ = [
    "add_scaled",
    "boft_bwd",
    "boft_fwd",
    "dora_bwd",
    "dora_fwd",
    "ia3_bwd",
    "ia3_fwd",
    "loha_bypass_bwd",
    "loha_bypass_fwd",
    "loha_merge_bwd",
    "lokr_bypass_bwd",
    "lokr_bypass_fwd",
    "lokr_full_merge_bwd",
    "lokr_full_merge_fwd",
    "lokr_merge_bwd",
    "lokr_merge_fwd",
    "lora_bypass_bwd",
    "lora_bypass_fwd",
    "lora_merge_bwd",
    "lora_merge_fwd",
    "lora_tucker_fwd",
    "oft_bwd",
    "oft_fwd",
]
