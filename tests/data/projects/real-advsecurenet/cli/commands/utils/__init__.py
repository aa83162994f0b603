from .commands import utils
