"""Benchmark utilities for fused-turboquant."""
