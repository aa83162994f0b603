r"""Model package."""
from .trompt import Trompt
from .ft_transformer import FTTransformer
from .excelformer import ExcelFormer
from .tabnet import TabNet
from .resnet import ResNet
from .tab_transformer import TabTransformer
from .mlp import MLP

__all__ = classes = [
    'Trompt',
    'FTTransformer',
    'ExcelFormer',
    'TabNet',
    'ResNet',
    'TabTransformer',
    'MLP',
]
