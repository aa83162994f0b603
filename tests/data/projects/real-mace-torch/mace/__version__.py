__version__ = "0.3.16"

__all__ = ["__version__"]
