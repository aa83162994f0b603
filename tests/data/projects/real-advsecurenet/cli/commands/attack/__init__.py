from .commands import attack
