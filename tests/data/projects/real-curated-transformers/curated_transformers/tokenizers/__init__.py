from .auto_tokenizer import AutoTokenizer
from .chunks import InputChunks, SpecialPieceChunk, TextChunk
from .hf_hub import FromHF
from .tokenizer import PiecesWithIds, Tokenizer, TokenizerBase

__all__ = [
    "AutoTokenizer",
    "FromHF",
    "InputChunks",
    "PiecesWithIds",
    "SpecialPieceChunk",
    "TextChunk",
    "Tokenizer",
    "TokenizerBase",
]
