"""ollada — the shelf for open-source diffusion language models."""

__version__ = "0.3.0"
