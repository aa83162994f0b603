from .aux_loss import clear_aux_loss, collect_aux_loss
from .graft import graft
from .inject import attach_aux_loss, equip, inject_esmoe
from .module import (
    BALANCES,
    EXPERTS,
    SETTINGS,
    DWExpert,
    ESMoE,
    blocks,
    gshard_balance,
    gshard_probs_balance,
    master_balance,
    odd,
    odd_kernels,
    switch_balance,
)

__all__ = [
    "BALANCES",
    "EXPERTS",
    "SETTINGS",
    "DWExpert",
    "ESMoE",
    "attach_aux_loss",
    "blocks",
    "clear_aux_loss",
    "collect_aux_loss",
    "equip",
    "graft",
    "gshard_balance",
    "gshard_probs_balance",
    "inject_esmoe",
    "master_balance",
    "odd",
    "odd_kernels",
    "switch_balance",
]
__version__ = "1.1.0"
