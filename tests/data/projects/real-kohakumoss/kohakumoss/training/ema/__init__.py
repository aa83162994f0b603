"""Weight EMA: constant decays, power-function EMA and post-hoc reconstruction."""

from kohakumoss.training.ema.averagers import (
    ConstantEMA,
    NoEMA,
    PowerEMA,
    build_ema,
    ema_is_power,
    gamma_from_sigma_rel,
)
from kohakumoss.training.ema.posthoc import combine, reconstruct, solve_weights

__all__ = [
    "ConstantEMA",
    "NoEMA",
    "PowerEMA",
    "build_ema",
    "combine",
    "ema_is_power",
    "gamma_from_sigma_rel",
    "reconstruct",
    "solve_weights",
]
