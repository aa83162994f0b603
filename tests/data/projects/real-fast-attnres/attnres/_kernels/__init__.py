"""CUDA kernel implementations, imported lazily."""
