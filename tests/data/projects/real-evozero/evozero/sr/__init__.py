"""Symbolic regression (Eureqa-style equation discovery)."""

from __future__ import annotations

from .estimator import Equation, SymbolicRegressor

__all__ = ["SymbolicRegressor", "Equation"]
