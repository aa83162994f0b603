from .conv import TritonBlockSparseBackend

doc = """
Triton backend for block-sparse matrix formats
"""

__all__ = [
    "TritonBlockSparseBackend",
]
