from .tokenizer import (
    BaseTokenizer,
    JiebaTokenizer,
    SimpleTokenizer,
    TiktokenTokenizer,
    get_tokenizer,
)

__all__ = [
    "BaseTokenizer",
    "TiktokenTokenizer",
    "JiebaTokenizer",
    "SimpleTokenizer",
    "get_tokenizer",
]
