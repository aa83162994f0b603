from .collection import Collection

__all__ = ["Collection"]
