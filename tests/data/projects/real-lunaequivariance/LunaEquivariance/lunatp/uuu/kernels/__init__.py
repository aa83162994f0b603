"""Generated CUDA kernels for UUU tensor products."""
