from .conv import CUDABTestackend

doc = """
CUDABTestackend backend registration. Importing this module registers the 'cuda' backend.
"""

__all__ = ["CUDABTestackend"]
