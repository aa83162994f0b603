"""Basic feature generation steps and helper utils."""

__all__ = ["base", "categorical", "datetime", "numeric", "composite", "utils"]
