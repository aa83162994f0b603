"""
CUDA-accelerated implementations of key operations for improved performance.
"""

# Import specific CUDA-optimized functions here when implemented
# from .some_cuda_module import some_cuda_function

__all__ = []
