from .base import BaseWeatherModel
from .flow_matching import StyleFlowMatch, WeatherFlowMatch, ConvNextBlock
from .icosahedral import IcosahedralFlowMatch
from .physics_guided import PhysicsGuidedAttention
from .stochastic import StochasticFlowModel

__all__ = [
    'BaseWeatherModel',
    'WeatherFlowMatch',
    'StyleFlowMatch',
    'PhysicsGuidedAttention',
    'StochasticFlowModel',
    'ConvNextBlock',
    'IcosahedralFlowMatch',
]

from .score_matching import ScoreMatchingModel
from .conversion import vector_field_to_score, score_to_vector_field

__all__.extend([
    'ScoreMatchingModel',
    'vector_field_to_score',
    'score_to_vector_field'
])
