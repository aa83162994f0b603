from .model import FPN  # noqa: F401
