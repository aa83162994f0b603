from .autoint import AutoIntBackbone, AutoIntModel
from .config import AutoIntConfig

__all__ = ["AutoIntModel", "AutoIntBackbone", "AutoIntConfig"]
