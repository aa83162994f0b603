from .conv import CUDABackend

doc = """
CUDA backend registration. Importing this module registers the 'cuda' backend.
"""

__all__ = ["CUDABackend"]
