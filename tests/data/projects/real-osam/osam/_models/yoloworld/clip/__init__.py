from .clip import tokenize  # noqa: F401
