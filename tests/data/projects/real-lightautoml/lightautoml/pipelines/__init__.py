"""Pipelines for solvinng different tasks."""

__all__ = ["ml", "features", "selection", "utils"]
