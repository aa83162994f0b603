from ._action import Action

__all__ = ["Action"]
