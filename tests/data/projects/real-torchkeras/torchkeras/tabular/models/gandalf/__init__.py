from .config import GANDALFConfig
from .gandalf import GANDALFBackbone, GANDALFModel

__all__ = [
    "GANDALFBackbone",
    "GANDALFModel",
    "GANDALFConfig",
]
