"""CUDA source generators and compile-time layout helpers."""
