from .gram import gram_, gram

__all__ = ["gram", "gram_"]
