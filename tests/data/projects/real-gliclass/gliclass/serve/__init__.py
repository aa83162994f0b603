"""GLiClass serving module."""

from .client import GLiClassClient
from .config import GLiClassServeConfig
from .memory import GLiClassMemoryEstimator
from .server import GLiClassServer, GLiClassFactory, shutdown, serve_gliclass

__all__ = [
    "GLiClassClient",
    "GLiClassFactory",
    "GLiClassMemoryEstimator",
    "GLiClassServeConfig",
    "GLiClassServer",
    "serve_gliclass",
    "shutdown",
]
