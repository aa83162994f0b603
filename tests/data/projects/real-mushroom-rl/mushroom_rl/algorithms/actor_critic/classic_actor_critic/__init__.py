from .copdac_q import COPDAC_Q
from .stochastic_ac import StochasticAC, StochasticAC_AVG

__all__ = ['COPDAC_Q', 'StochasticAC', 'StochasticAC_AVG']