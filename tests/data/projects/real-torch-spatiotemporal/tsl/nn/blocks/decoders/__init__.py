from .att_pool import AttPool
from .gcn_decoder import GCNDecoder
from .linear_readout import LinearReadout
from .mlp_decoder import MLPDecoder
from .multi_step_mlp_decoder import MultiHorizonMLPDecoder

__all__ = [
    'AttPool',
    'GCNDecoder',
    'LinearReadout',
    'MLPDecoder',
    'MultiHorizonMLPDecoder',
]

classes = __all__
