"""Clustering evaluation (clustbench quality) and throughput harness (``perf_test``)."""

from __future__ import annotations
