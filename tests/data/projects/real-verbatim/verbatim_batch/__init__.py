"""Batch processing entrypoint for verbatim."""

from verbatim_batch.main import main

__all__ = ["main"]
