"""Utils for training and analysing data."""

__all__ = ["base", "utils", "tabular_batch_generator"]
