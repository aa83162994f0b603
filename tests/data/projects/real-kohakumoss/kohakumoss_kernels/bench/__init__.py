"""Benchmark harnesses shared by scripts/bench."""
