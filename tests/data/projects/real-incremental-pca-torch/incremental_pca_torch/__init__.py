"""
Incremental PCA for PyTorch.

GPU-accelerated Incremental Principal Component Analysis with a
scikit-learn compatible API.
"""

from incremental_pca_torch.incremental_pca import IncrementalPCA

__version__ = "0.1.0"
__all__ = ["IncrementalPCA", "__version__"]
