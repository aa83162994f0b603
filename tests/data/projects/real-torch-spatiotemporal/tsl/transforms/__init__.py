from .imputation import MaskInput
from .masked_subgraph import MaskedSubgraph
from .rearrange import NodeThenTime, Rearrange

__all__ = [
    'MaskedSubgraph',
    'Rearrange',
    'NodeThenTime',
    'MaskInput',
]

classes = __all__
