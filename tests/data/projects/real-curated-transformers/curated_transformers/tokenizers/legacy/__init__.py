from .bbpe_tokenizer import ByteBPETokenizer
from .bert_tokenizer import BERTTokenizer
from .camembert_tokenizer import CamemBERTTokenizer
from .legacy_tokenizer import (
    LegacyTokenizer,
    PostDecoder,
    PostEncoder,
    PreDecoder,
    PreEncoder,
)
from .llama_tokenizer import LlamaTokenizer
from .roberta_tokenizer import RoBERTaTokenizer
from .sentencepiece_tokenizer import SentencePieceTokenizer
from .wordpiece_tokenizer import WordPieceTokenizer
from .xlmr_tokenizer import XLMRTokenizer

__all__ = [
    "BERTTokenizer",
    "ByteBPETokenizer",
    "CamemBERTTokenizer",
    "LlamaTokenizer",
    "LegacyTokenizer",
    "PostDecoder",
    "PostEncoder",
    "PreDecoder",
    "PreEncoder",
    "RoBERTaTokenizer",
    "SentencePieceTokenizer",
    "WordPieceTokenizer",
    "XLMRTokenizer",
]
