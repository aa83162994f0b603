from .configurable import Configurable

__all__ = ["Configurable"]
