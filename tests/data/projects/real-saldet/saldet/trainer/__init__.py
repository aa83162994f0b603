from .callbacks import create_callbacks
