"""Bunch of classes for hyperparameters tuning."""

__all__ = ["base", "optuna"]
