"""Validate step metrics."""
from sparse_autoencoder.metrics.validate.abstract_validate_metric import AbstractValidationMetric


__all__ = ["AbstractValidationMetric"]
