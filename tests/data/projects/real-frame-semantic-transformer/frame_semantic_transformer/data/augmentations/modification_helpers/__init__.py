from .modify_text_without_changing_length import modify_text_without_changing_length
from .splice_text import splice_text
from .get_sample_text import get_sample_text

__all__ = [
    "modify_text_without_changing_length",
    "splice_text",
    "get_sample_text",
]
