"""Optimizers for PhyTorch model fitting."""

from .scipy_optimizer import fit_with_scipy

__all__ = ['fit_with_scipy']
