from .add import add_scaled

__all__ = ["add_scaled"]
