"""embedx — heterogeneous multi-GPU text embedding server."""

__version__ = "0.3.1"

__all__ = ["__version__"]
