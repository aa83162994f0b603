from .model import PSPNet  # noqa: F401
