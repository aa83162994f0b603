__version__ = "1.6.14"  # pragma: no cover
