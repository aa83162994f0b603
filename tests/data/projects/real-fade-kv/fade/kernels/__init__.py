"""Fused kernels for the tiered KV cache hot paths."""
