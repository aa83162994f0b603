__version__ = "1.0.2"

from .gritlm import GritLM