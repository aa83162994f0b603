"""Config selection: analytical planner -> timed shortlist -> on-disk table per card."""

from kohakumoss_kernels.tuning.prewarm import attention_lengths, prewarm_attention
from kohakumoss_kernels.tuning.tuner import (
    MODES,
    agree,
    broadcast,
    decided,
    forget,
    get_mode,
    select,
    set_mode,
    table,
    timing_allowed,
)

__all__ = [
    "MODES",
    "agree",
    "attention_lengths",
    "broadcast",
    "decided",
    "forget",
    "get_mode",
    "prewarm_attention",
    "select",
    "set_mode",
    "table",
    "timing_allowed",
]
