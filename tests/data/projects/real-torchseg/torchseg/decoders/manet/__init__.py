from .model import MAnet  # noqa: F401
