"""Benchmarking utilities."""
