from .agent import agent
from .cli import main

__all__ = ['agent', 'main']

__version__ = '0.0.5'
