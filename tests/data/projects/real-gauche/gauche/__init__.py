from .gp import SIGP, NonTensorialInputs

__all__ = ["SIGP", "NonTensorialInputs"]

__version__ = "0.1.6"
