r"""Decoder package."""
from .decoder import Decoder
from .trompt_decoder import TromptDecoder
from .excelformer_decoder import ExcelFormerDecoder

__all__ = classes = [
    'Decoder',
    'TromptDecoder',
    'ExcelFormerDecoder',
]
