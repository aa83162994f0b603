"""
Tokenizers for Model Wrapper
-------------------------------
"""

from .glove_tokenizer import GloveTokenizer
from .t5_tokenizer import T5Tokenizer
