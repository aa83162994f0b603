from .commands import train
