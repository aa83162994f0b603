from .model import BaseModel

__all__ = ["BaseModel"]
