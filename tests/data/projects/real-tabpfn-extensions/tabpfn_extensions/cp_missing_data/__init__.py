"""Conformal prediction for missing data module for tabpfn_extensions package."""

from .cp_missing_data import (
    CPMDATabPFNRegressor,
)

__all__ = ["CPMDATabPFNRegressor"]
