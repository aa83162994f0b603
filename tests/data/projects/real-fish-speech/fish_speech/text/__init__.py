from .clean import clean_text

__all__ = ["clean_text"]
