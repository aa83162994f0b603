from .version import __version__  # noqa: F401

# Optionally expose top-level API symbols
# from .propagation import probability, ...
