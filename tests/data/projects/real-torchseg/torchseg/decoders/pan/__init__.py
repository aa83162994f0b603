from .model import PAN  # noqa: F401
