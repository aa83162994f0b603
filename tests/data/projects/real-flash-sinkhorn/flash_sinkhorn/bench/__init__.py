"""Benchmark scripts shipped with the package."""

__all__: list[str] = []
