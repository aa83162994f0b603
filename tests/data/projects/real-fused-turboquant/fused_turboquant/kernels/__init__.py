"""Fused Triton kernels for RHT, quantized attention, and pipeline encode/decode."""
