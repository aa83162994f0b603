"""ollada runtime — model management for the daemon and CLI."""

from ollada.runtime.manager import ModelManager

__all__ = ["ModelManager"]
