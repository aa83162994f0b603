from .commands import configs
