"""This module defines the logistic regression model for the benchmark."""

__all__ = ["LogisticRegressionMnist", "create_lr_model"]

from .logistic_regression import LogisticRegressionMnist, create_lr_model
