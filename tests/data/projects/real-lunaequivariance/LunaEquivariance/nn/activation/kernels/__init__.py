"""CUDA kernels and bindings for scalar activations."""
