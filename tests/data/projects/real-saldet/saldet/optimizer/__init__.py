from .optimizer import create_optimizer
