"""Profiling and the end-of-run report."""
