from ._models import Sam3  # noqa: F401
