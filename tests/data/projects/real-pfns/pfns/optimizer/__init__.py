from .config import OptimizerConfig

__all__ = ["OptimizerConfig"]
