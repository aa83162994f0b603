from .t5 import T5Encoder, Umt5Tokenizer

__all__ = ["T5Encoder", "Umt5Tokenizer"]
