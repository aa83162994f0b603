from .commands import defense
