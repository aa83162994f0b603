"""Statistical tools for survival analysis."""

from __future__ import annotations

from torchsurv.stats.ipcw import get_ipcw
from torchsurv.stats.kaplan_meier import KaplanMeierEstimator

__all__ = [
    "get_ipcw",
    "KaplanMeierEstimator",
]
