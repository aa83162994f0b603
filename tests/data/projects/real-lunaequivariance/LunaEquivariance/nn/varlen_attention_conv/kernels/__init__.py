"""Fused CUDA kernels for CSR attention convolution."""
