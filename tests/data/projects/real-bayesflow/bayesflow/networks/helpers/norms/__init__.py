from .simple_norm import SimpleNorm
