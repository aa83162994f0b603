r"""Convolutional layer package."""
from .table_conv import TableConv
from .ft_transformer_convs import FTTransformerConvs
from .trompt_conv import TromptConv
from .excelformer_conv import ExcelFormerConv
from .tab_transformer_conv import TabTransformerConv

__all__ = classes = [
    'TableConv',
    'FTTransformerConvs',
    'TromptConv',
    'ExcelFormerConv',
    'TabTransformerConv',
]
