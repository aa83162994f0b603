"""jaxlib, matching the jax next to it."""

__version__ = "0.4.35"
