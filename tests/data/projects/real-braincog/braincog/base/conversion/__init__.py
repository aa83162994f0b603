from .convertor import HookScale, Hookoutput, Scale, Convertor, SNode
from .merge import mergeConvBN, merge


__all__ = [
    'Hookoutput', 'HookScale', 'Scale', 'Convertor', 'SNode',
    'merge', 'mergeConvBN'
]