"""CUDA generators for fused equivariant normalization."""
