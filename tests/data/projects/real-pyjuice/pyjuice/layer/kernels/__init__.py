"""Triton kernels for the circuit layers, split by computation phase and sparsity pattern."""
