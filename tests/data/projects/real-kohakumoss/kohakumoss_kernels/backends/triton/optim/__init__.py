"""Triton optimizer step kernels: per-tensor and multi-tensor AdamW."""
