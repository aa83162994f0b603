from . import baguarun  # noqa: F401
