from .stochastic_optim import Compass, LPFAdamW, AdamW, RMSProp, StochasticAccumulator

__all__ = ["Compass", "RMSProp", "AdamW", "LPFAdamW", "StochasticAccumulator"]
