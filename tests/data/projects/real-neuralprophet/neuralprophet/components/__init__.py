from .base import BaseComponent  # noqa: F401
