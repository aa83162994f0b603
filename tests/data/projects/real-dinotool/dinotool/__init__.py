__version__ = "0.4.0"

from .cli import DinoToolModel

__all__ = ["DinoToolModel"]