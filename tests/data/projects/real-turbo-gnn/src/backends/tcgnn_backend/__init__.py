from .conv import TcgnnBackend

doc = """
Torch-native backend (edge-index + torch.sparse CSR/COO baselines).
"""

__all__ = [
    "TCGNNBackedn",
]
